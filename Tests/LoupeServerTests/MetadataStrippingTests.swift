import Foundation
import LoupeCodecs
import LoupeServer
import LoupeTestSupport
import Testing

/// Results never carry the source's metadata: a JPEG with EXIF (a description and GPS) comes out
/// as JPEG, PNG and WebP without any of it.
@Suite struct MetadataStrippingTests {
    static let secret = "LOUPE-SECRET"

    /// A big-endian TIFF block as EXIF carries it: IFD0 with an ImageDescription and a GPS IFD
    /// holding GPSLatitudeRef "N".
    static func exifSegment() -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        let description = Array(secret.utf8) + [0]              // 13 bytes at offset 38
        let gpsOffset = 38 + description.count + 1             // 52, word aligned
        var tiff: [UInt8] = Array("MM".utf8) + u16(42) + u32(8)
        tiff += u16(2)                                         // IFD0: two entries
        tiff += u16(0x010E) + u16(2) + u32(description.count) + u32(38)
        tiff += u16(0x8825) + u16(4) + u32(1) + u32(gpsOffset)
        tiff += u32(0)
        tiff += description + [0]
        tiff += u16(1)                                         // GPS IFD: one entry
        tiff += u16(0x0001) + u16(2) + u32(2) + Array("N".utf8) + [0, 0, 0]
        tiff += u32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return Data([0xFF, 0xE1] + u16(payload.count + 2) + payload)
    }

    @Test func exifAndGPSAreStrippedFromEveryFormat() async throws {
        let plain = try TestImage.jpeg(width: 120, height: 90, seed: 22)
        // After SOI, before the encoder's own segments.
        let photo = plain.prefix(2) + Self.exifSegment() + plain.dropFirst(2)
        #expect(photo.range(of: Data(Self.secret.utf8)) != nil)
        #expect(try ImageDecoder().decode(photo, options: DecodingOptions(firstFrameOnly: true)).metadata.width == 120)
        let nginx = try NginxServer.start(files: ["exif.jpg": photo])
        defer { nginx.stop() }
        try await RoutedServer.with(testSettings()) { server in
            for (options, format) in [("w:60", ImageFormat.jpeg), ("w:60/sm:1", .png), ("w:60/sm:true", .webp)] {
                let answer = try await server.request(insecurePath(options, nginx.url("/exif.jpg").absoluteString,
                                                                   extension: format.rawValue))
                #expect(answer.status == 200, "\(options) \(format)")
                let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
                #expect(image.metadata.format == format)
                #expect(image.metadata.width == 60)
                #expect(answer.body.range(of: Data(Self.secret.utf8)) == nil, "\(format)")
                #expect(answer.body.range(of: Data("Exif".utf8)) == nil, "\(format)")
                #expect(answer.body.range(of: Data("eXIf".utf8)) == nil, "\(format)")
            }
            // Keeping metadata is refused by name, not silently ignored.
            let keep = try await server.request(insecurePath("w:60/sm:0", nginx.url("/exif.jpg").absoluteString))
            #expect(keep.status == 400)
            #expect(keep.json["kind"] as? String == "badOption")
        }
    }
}
