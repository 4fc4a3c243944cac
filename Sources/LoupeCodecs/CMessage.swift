import CLoupeCodecs

/// A C message buffer (LC_MESSAGE_CAPACITY bytes) that the shim fills on failure.
struct CMessage {
    private var storage = [CChar](repeating: 0, count: Int(LC_MESSAGE_CAPACITY))

    /// Runs `body` with the buffer's address.
    mutating func withPointer<T>(_ body: (UnsafeMutablePointer<CChar>) throws -> T) rethrows -> T {
        try storage.withUnsafeMutableBufferPointer { buffer in
            // The array is never empty, so its base address exists.
            guard let base = buffer.baseAddress else { preconditionFailure("empty message buffer") }
            return try body(base)
        }
    }

    /// The message up to its terminating NUL.
    var text: String { CMessage.string(storage) }

    /// Reads a NUL-terminated C string owned by a handle, bounded by the buffer capacity.
    static func string(_ pointer: UnsafePointer<CChar>) -> String {
        string(Array(UnsafeBufferPointer(start: pointer, count: Int(LC_MESSAGE_CAPACITY))))
    }

    private static func string(_ chars: [CChar]) -> String {
        let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.isEmpty ? "unknown error" : text
    }
}
