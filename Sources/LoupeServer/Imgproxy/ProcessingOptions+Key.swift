/// What the declared fields (``declaredFields``) say about a set of options: the
/// result key, the geometry step's identity, and whether the geometry step or the decoder's
/// fit-box shortcut is needed.
extension ProcessingOptions {
    /// The result key's version: a key made another way is another version, and results
    /// stored under it are simply not found (misses that age out of the cache).
    static let resultKeyVersion = "v2"

    /// Everything that changes the result's bytes (every field not declared as changing only
    /// headers), in a stable text form: each field away from its default as `;key=value`, in
    /// the declarations' order. The signature is not part of it (a key rotation keeps results),
    /// nor are the source and the output format decision, which the service adds.
    var resultKey: String {
        Self.resultKeyVersion + Self.text(of: self, fields: Self.resultFields)
    }

    /// The geometry fields' part of the key: the geometry step's identity.
    var geometryKey: String {
        Self.text(of: self, fields: Self.geometryFields)
    }

    /// Whether any option changes the image's geometry on its own (a field that only refines
    /// another, or acts only with a box, does not).
    var changesGeometry: Bool {
        Self.actingFields.contains { !$0.isDefault(self) }
    }

    /// The box of options that ask for nothing but a fit into a closed box, which the decoder
    /// can shrink to directly: `fit` (the default type) with a width and a height, and no other
    /// geometry field away from its default except those that only refine another.
    var plainFitBox: (width: Int, height: Int)? {
        guard resizingType == .fit, width > 0, height > 0 else { return nil }
        return Self.fieldsBesideTheBox.contains { !$0.isDefault(self) } ? nil : (width, height)
    }

    /// Every declared field: imgproxy's options' and thumbor's.
    static let declaredFields = ImgproxyOption.allFields + ThumborURL.fields

    // The declarations filtered once: these are read for every request.
    private static let resultFields = declaredFields.filter { $0.role != .headersOnly }
    private static let geometryFields = declaredFields.filter { if case .geometry = $0.role { true } else { false } }
    private static let actingFields = declaredFields.filter { $0.role == .geometry(.acts) }
    /// The fields that make a fit more than a plain fit: acting with or without a box, but not
    /// the box itself (`w`, `h`).
    private static let fieldsBesideTheBox = declaredFields.filter { field in
        let box: [PartialKeyPath<ProcessingOptions>] = [\.width, \.height]
        return (field.role == .geometry(.acts) || field.role == .geometry(.withBox)) && !box.contains(field.keyPath)
    }

    private static func text(of options: ProcessingOptions, fields: [OptionField]) -> String {
        var text = ""
        for field in fields {
            guard let value = field.text(options) else { continue }
            text += ";" + field.key + "=" + value
        }
        return text
    }
}
