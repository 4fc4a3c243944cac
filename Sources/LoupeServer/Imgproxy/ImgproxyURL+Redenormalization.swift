extension ImgproxyURL {
    /// The path after the signature as imgproxy reads it, undoing what browsers, proxies and
    /// CDNs do to URLs on the way: `%3A` in the options part becomes `:` again, a plain source
    /// whose `scheme://` was merged to `scheme:/` gets its slashes back (`local:/` its third),
    /// and one leading `/` goes, so that an empty options part (`/sig//plain/...`, what a
    /// client that joins an empty option list writes) reads as no options. imgproxy signs this
    /// restored path, so a URL a proxy changed still verifies.
    static func redenormalized(_ path: String) -> String {
        var options: Substring
        var plain: Substring?
        if path.hasPrefix("plain/") {
            options = ""
            plain = path.dropFirst("plain/".count)
        } else if let marker = path.range(of: "/plain/") {
            options = path[..<marker.lowerBound]
            plain = path[marker.upperBound...]
        } else {
            options = Substring(path)
        }
        let restoredOptions = options.replacingOccurrences(of: "%3A", with: ":")
        guard let plain else { return String(restoredOptions.trimmingOneLeadingSlash) }
        return String((restoredOptions + "/plain/" + Self.restoringSchemeSlashes(plain)).trimmingOneLeadingSlash)
    }

    /// `scheme:/rest` → `scheme://rest` (`local:///rest` for local sources), at the last `:/`
    /// not followed by `/` within the source's first run of non-space characters: imgproxy's
    /// rule (a greedy `^(\S+):/([^/])`), kept as it is so both read a URL the same.
    private static func restoringSchemeSlashes(_ source: Substring) -> String {
        let characters = Array(source)
        let run = characters.firstIndex(where: \.isWhitespace) ?? characters.count
        var colon = min(run, characters.count - 3)
        while colon >= 1 {
            if characters[colon] == ":", characters[colon + 1] == "/", characters[colon + 2] != "/" { break }
            colon -= 1
        }
        guard colon >= 1 else { return String(source) }
        let scheme = String(characters[..<colon])
        let slashes = scheme == "local" ? ":///" : "://"
        return scheme + slashes + String(characters[(colon + 2)...])
    }
}

private extension StringProtocol {
    /// Without one leading `/`, if it has one.
    var trimmingOneLeadingSlash: SubSequence {
        hasPrefix("/") ? dropFirst() : self[...]
    }
}
