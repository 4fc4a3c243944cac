import LoupeProcessing

/// One field of ``ProcessingOptions`` as an ``ImgproxyOption`` declares it: where it is, its
/// name in the result key and what it changes. The result key, the geometry's identifier, the
/// fit-box shortcut and ``ProcessingOptions/changesGeometry`` are made from these.
struct OptionField: Sendable {
    /// What changing the field changes.
    enum Role: Sendable, Equatable {
        /// The image's geometry (imgproxy's size plan and its steps), with its effect there.
        case geometry(GeometryEffect)
        /// The result's bytes otherwise (filters, quality, format, watermark, cache buster, ...).
        case result
        /// Only the answer's headers or whether it is served at all (`filename`, `expires`): not
        /// part of the result key.
        case headersOnly
    }

    /// How a geometry field acts, for ``ProcessingOptions/changesGeometry`` and the fit-box
    /// shortcut (``ProcessingOptions/plainFitBox``).
    enum GeometryEffect: Sendable, Equatable {
        /// Changes the geometry on its own (`width`, `crop`, `rotate`, ...).
        case acts
        /// Changes it only together with a box (`resizing_type`, `enlarge`, `extend`), so it
        /// alone needs no geometry step, but a fit into a box with it is not a plain fit.
        case withBox
        /// Refines another field (a gravity, `trim`'s colour) and changes nothing without it.
        case refines
    }

    /// The field.
    let keyPath: PartialKeyPath<ProcessingOptions> & Sendable
    /// Its name in the result key.
    let key: String
    let role: Role
    /// The field's value as result-key text, `nil` while it holds its default (so adding an
    /// option changes no existing URL's key).
    let text: @Sendable (ProcessingOptions) -> String?
    /// Whether the field holds its default: ``text`` without making the text.
    let isDefault: @Sendable (ProcessingOptions) -> Bool

    /// Declares `keyPath`, named `key` in the result key.
    init<Value: ResultKeyText & Equatable & Sendable>(_ keyPath: KeyPath<ProcessingOptions, Value> & Sendable, key: String,
                                                      _ role: Role = .result) {
        self.keyPath = keyPath
        self.key = key
        self.role = role
        let initial = ProcessingOptions()[keyPath: keyPath]
        let read = Self.reader(of: keyPath)
        text = { options in
            let value = read(options)
            return value == initial ? nil : value.resultKeyText
        }
        isDefault = { read($0) == initial }
    }

    /// How the field is read on every request. A key path's projection copies the whole
    /// options value first (every string and array in it retained, then released), once per
    /// field of every key made; a stored field is read where it lies instead, at the offset
    /// the key path names (`MemoryLayout.offset(of:)` gives one only for a stored property
    /// whose storage is inline, so the load below reads an initialised `Value` there).
    private static func reader<Value>(of keyPath: KeyPath<ProcessingOptions, Value> & Sendable)
        -> @Sendable (ProcessingOptions) -> Value {
        guard let offset = MemoryLayout<ProcessingOptions>.offset(of: keyPath) else { return { $0[keyPath: keyPath] } }
        return { options in withUnsafeBytes(of: options) { $0.load(fromByteOffset: offset, as: Value.self) } }
    }
}
