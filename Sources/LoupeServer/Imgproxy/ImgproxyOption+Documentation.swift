/// The options table of `docs/imgproxy-options.md`, made from the declarations
/// (`OptionDeclarationTests` checks the page against it and can rewrite it).
extension ImgproxyOption {
    /// The table's header and one row per declared option, in ``all``'s order.
    static var documentationTable: String {
        (["| option (aliases) | imgproxy's meaning | Loupe | differences |", "|---|---|---|---|"] + all.map(\.documentationRow))
            .joined(separator: "\n")
    }

    /// `| `name` (`alias`, …) | meaning | Loupe | differences |`.
    var documentationRow: String {
        let aliases = names.dropFirst().map { "`\($0)`" }.joined(separator: ", ")
        let option = "`\(name)`" + (aliases.isEmpty ? "" : " (\(aliases))")
        let security = isSecurity ? " (a security option: imgproxy takes it only with `IMGPROXY_ALLOW_SECURITY_OPTIONS`)" : ""
        return "| \(option) | \(documentation.meaning)\(security) | \(documentation.loupe) | \(documentation.differences) |"
    }
}
