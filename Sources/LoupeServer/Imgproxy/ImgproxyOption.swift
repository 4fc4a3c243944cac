/// One imgproxy URL option, declared once: its names, how many arguments it takes and how they
/// are read (``OptionArguments``, imgproxy's rules for empty arguments), the fields of
/// ``ProcessingOptions`` it sets and how each enters the result key, whether imgproxy counts it
/// among its security options, and its row of `docs/imgproxy-options.md`.
///
/// Parsing (``OptionSegment``), the result key, the fit-box shortcut and the documentation's
/// table are all made from ``all``, so an option is added by adding its declaration (and its
/// test); `OptionDeclarationTests` fails when a field of ``ProcessingOptions`` has no
/// declaration, when changing one leaves the result key unchanged, or when the documentation's
/// table differs from the declarations'.
struct ImgproxyOption: Sendable {
    /// The canonical name, then its aliases, as URLs may spell it.
    let names: [String]
    /// How many `:`-separated arguments the option takes.
    let arguments: ClosedRange<Int>
    /// The fields the option sets, each with its part in the result key. Options that only
    /// combine others (`resize`, `size`) list none: their parts' declarations hold them.
    let fields: [OptionField]
    /// Whether imgproxy takes the option only with `IMGPROXY_ALLOW_SECURITY_OPTIONS`.
    let isSecurity: Bool
    /// Whether Loupe takes the option; one it does not is refused by name (`400 unsupportedOption`).
    let isSupported: Bool
    /// The option's row in the documentation's table.
    let documentation: Documentation
    /// Reads the arguments into the options; a bad argument is a `badOption` naming it.
    let apply: @Sendable (OptionArguments, inout ProcessingOptions) throws(ServiceError) -> Void

    /// The texts of the option's row in `docs/imgproxy-options.md`, after its names.
    struct Documentation: Sendable, Equatable {
        /// What the option means in imgproxy.
        var meaning: String
        /// What `loupe serve` does with it.
        var loupe: String
        /// Where Loupe differs from imgproxy, and the tests that check the option ("—": nowhere).
        var differences: String
    }

    init(_ names: [String], arguments: ClosedRange<Int>, fields: [OptionField] = [], isSecurity: Bool = false, isSupported: Bool = true,
         documentation: Documentation, apply: @escaping @Sendable (OptionArguments, inout ProcessingOptions) throws(ServiceError) -> Void) {
        self.names = names
        self.arguments = arguments
        self.fields = fields
        self.isSecurity = isSecurity
        self.isSupported = isSupported
        self.documentation = documentation
        self.apply = apply
    }

    /// An option imgproxy has and Loupe refuses (`400 unsupportedOption`), declared for its
    /// documentation row.
    static func unsupported(_ names: [String], isSecurity: Bool = false, documentation: Documentation) -> ImgproxyOption {
        ImgproxyOption(names, arguments: 0...Int.max, isSecurity: isSecurity, isSupported: false,
                       documentation: documentation) { arguments, _ throws(ServiceError) in
            throw .unsupportedOption(arguments.name)
        }
    }

    /// The canonical name.
    var name: String { names[0] }

    /// Every option, in the documentation's order (which is also the result key's).
    static let all: [ImgproxyOption] = geometry + filtersAndOutput + handling

    /// Every option by each of its names; a name declared twice keeps its first declaration
    /// (`OptionDeclarationTests` refuses the table then).
    static let byName: [String: ImgproxyOption] = Dictionary(all.flatMap { option in option.names.map { ($0, option) } },
                                                             uniquingKeysWith: { first, _ in first })

    /// Every field's declaration, in the order of ``all``.
    static let allFields: [OptionField] = all.flatMap(\.fields)
}
