#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// libLoupeVision (Sources/CLoupeVision), the project's shim over OpenCV, opened the first time
/// a detection needs it rather than linked: OpenCV and what it brings (calib3d, dnn, protobuf)
/// would cost every process their loading whether or not it ever crops a face, and a deployment
/// without them gets ``VisionFailure/unavailable(_:)`` and a fallback instead of a binary that
/// does not start. The prototypes below are `loupe_vision.h`'s; its interface version is checked
/// once the library is open.
struct VisionLibrary: Sendable {
    // The addresses of the shim's functions, as integers: an address is a plain value, fixed
    // once dlopen resolved it (the handle is never closed), so a copy is safe on any thread.
    private let detectCascadeAddress: UInt
    private let goodFeaturesAddress: UInt
    private let redEyeAddress: UInt

    private typealias InterfaceVersion = @convention(c) () -> Int32
    private typealias DetectCascade = @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int32, Int32, Int32, Double, Int32, Int32,
        UnsafeMutablePointer<Int32>?, Int32, UnsafeMutablePointer<CChar>?
    ) -> Int32
    private typealias GoodFeatures = @convention(c) (
        UnsafePointer<UInt8>?, Int32, Int32, Int32, Int32, Double, Double, UnsafeMutablePointer<Float>?, Int32,
        UnsafeMutablePointer<CChar>?
    ) -> Int32

    private typealias RedEye = @convention(c) (
        UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32, UnsafePointer<Int32>?, Int32, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?
    ) -> Int32

    /// `LV_INTERFACE_VERSION` of the header these prototypes copy.
    private static let interfaceVersion: Int32 = 1
    /// `LV_MESSAGE_CAPACITY`.
    private static let messageCapacity = 256
    /// The library's file name.
    static let fileName = "libLoupeVision.so"

    /// The library, opened once per process (a static `let` is initialised exactly once, on
    /// first use), or why it cannot be.
    static let shared: Result<VisionLibrary, VisionFailure> = load()

    /// Tries beside the running executable first (where SwiftPM builds it and where `loupe` is
    /// installed with it), then the dynamic loader's own search path.
    private static func load() -> Result<VisionLibrary, VisionFailure> {
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(fileName).path)
        }
        candidates.append(fileName)
        var handle: UnsafeMutableRawPointer?
        var reason = "not found"
        for candidate in candidates where handle == nil {
            // RTLD_LOCAL: OpenCV's symbols stay out of the global namespace.
            handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)
            if handle == nil, let error = dlerror() { reason = String(cString: error) }
        }
        guard let handle else { return .failure(.unavailable("\(fileName) cannot be loaded (\(reason))")) }
        func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }
        guard let version = symbol("lv_interface_version"), let detect = symbol("lv_detect_cascade"),
              let features = symbol("lv_good_features"), let redEye = symbol("lv_red_eye") else {
            return .failure(.unavailable("\(fileName) lacks the functions of loupe_vision.h"))
        }
        let built = unsafeBitCast(version, to: InterfaceVersion.self)()
        guard built == interfaceVersion else {
            return .failure(.unavailable("\(fileName) has interface version \(built), Loupe expects \(interfaceVersion)"))
        }
        return .success(VisionLibrary(detectCascadeAddress: UInt(bitPattern: detect), goodFeaturesAddress: UInt(bitPattern: features),
                                      redEyeAddress: UInt(bitPattern: redEye)))
    }

    /// `lv_detect_cascade`: the boxes the cascade in `cascadePath` finds in `image`, as OpenCV's
    /// `detectMultiScale(image, scaleFactor, minNeighbors, minSize: minSide²)` finds them.
    func detect(cascadePath: String, in image: GreyImage, scaleFactor: Double, minNeighbors: Int, minSide: Int,
                capacity: Int = 256) throws(VisionFailure) -> [(x: Int, y: Int, width: Int, height: Int)] {
        let function = unsafeBitCast(detectCascadeAddress, to: DetectCascade.self)
        var boxes = [Int32](repeating: 0, count: 4 * capacity)
        var message = [CChar](repeating: 0, count: Self.messageCapacity)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            function(cascadePath, pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), scaleFactor,
                     Int32(clamping: minNeighbors), Int32(clamping: minSide), &boxes, Int32(capacity), &message)
        }
        guard found >= 0 else { throw .failed(Self.text(message)) }
        return (0..<min(Int(found), capacity)).map { index in
            (Int(boxes[4 * index]), Int(boxes[4 * index + 1]), Int(boxes[4 * index + 2]), Int(boxes[4 * index + 3]))
        }
    }

    /// `lv_good_features`: OpenCV's `goodFeaturesToTrack` corners in `image`.
    func goodFeatures(in image: GreyImage, maxCorners: Int, qualityLevel: Double, minDistance: Double) throws(VisionFailure) -> [(x: Float, y: Float)] {
        let function = unsafeBitCast(goodFeaturesAddress, to: GoodFeatures.self)
        let capacity = max(0, maxCorners)
        var points = [Float](repeating: 0, count: 2 * capacity)
        var message = [CChar](repeating: 0, count: Self.messageCapacity)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            function(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(clamping: maxCorners), qualityLevel,
                     minDistance, &points, Int32(capacity), &message)
        }
        guard found >= 0 else { throw .failed(Self.text(message)) }
        return (0..<min(Int(found), capacity)).map { (points[2 * $0], points[2 * $0 + 1]) }
    }

    /// `lv_red_eye`: thumbor's red-eye correction inside `faces` (x, y, width, height each), in
    /// place; how many eyes were found.
    func redEye(in pixels: inout [UInt8], width: Int, height: Int, bytesPerRow: Int, faces: [Int32], eyeCascadePath: String) throws(VisionFailure) -> Int {
        let function = unsafeBitCast(redEyeAddress, to: RedEye.self)
        var message = [CChar](repeating: 0, count: Self.messageCapacity)
        let found = pixels.withUnsafeMutableBufferPointer { buffer in
            function(buffer.baseAddress, Int32(width), Int32(height), Int32(bytesPerRow), faces, Int32(faces.count / 4), eyeCascadePath, &message)
        }
        guard found >= 0 else { throw .failed(Self.text(message)) }
        return Int(found)
    }

    /// A C message buffer's text.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a detection through OpenCV gave no answer.
public enum VisionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// libLoupeVision or OpenCV is not installed (or is from another build): the caller falls
    /// back to what needs no OpenCV.
    case unavailable(String)
    /// OpenCV refused the work (a cascade file missing or unreadable, an allocation failed).
    case failed(String)
    /// The work was cancelled between its steps.
    case cancelled

    public var description: String {
        switch self {
        case .unavailable(let reason): "OpenCV's detection is unavailable: \(reason)"
        case .failed(let reason): "OpenCV's detection failed: \(reason)"
        case .cancelled: "cancelled"
        }
    }
}
