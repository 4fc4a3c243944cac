extension ImgproxyURL {
    /// The path after the signature as imgproxy reads it, undoing what browsers, proxies and
    /// CDNs do to URLs on the way: `%3A` in the options part becomes `:` again, a plain source
    /// whose `scheme://` was merged to `scheme:/` gets its slashes back (`local:/` its third),
    /// and one leading `/` goes, so that an empty options part (`/sig//plain/...`, what a
    /// client that joins an empty option list writes) reads as no options. imgproxy signs this
    /// restored path, so a URL a proxy changed still verifies.
    ///
    /// On the path's UTF-8 bytes: every request's path goes through here, and what it looks for
    /// is ASCII, which never occurs inside a multi-byte character.
    static func redenormalized(_ path: String) -> String {
        let bytes = Array(path.utf8)
        let plainMarker = Array("/plain/".utf8)
        let options: ArraySlice<UInt8>
        let plain: ArraySlice<UInt8>?
        if bytes.starts(with: plainMarker.dropFirst()) {
            options = []
            plain = bytes[(plainMarker.count - 1)...]
        } else if let marker = firstIndex(of: plainMarker, in: bytes) {
            options = bytes[..<marker]
            plain = bytes[(marker + plainMarker.count)...]
        } else {
            options = bytes[...]
            plain = nil
        }
        var restored: [UInt8] = []
        restored.reserveCapacity(bytes.count + 3)
        appendRestoringColons(options, to: &restored)
        if let plain {
            restored += plainMarker
            appendRestoringSchemeSlashes(plain, to: &restored)
        }
        let start = restored.first == UInt8(ascii: "/") ? 1 : 0
        return String(decoding: restored[start...], as: UTF8.self)
    }

    /// `bytes` with every `%3A` (as imgproxy writes it: upper case only) turned back into `:`.
    private static func appendRestoringColons(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               bytes[index + 1] == UInt8(ascii: "3"), bytes[index + 2] == UInt8(ascii: "A") {
                out.append(UInt8(ascii: ":"))
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
    }

    /// `scheme:/rest` → `scheme://rest` (`local:///rest` for local sources), at the last `:/`
    /// not followed by `/` within the source's first run of non-space bytes: imgproxy's rule (a
    /// greedy `^(\S+):/([^/])`, whose `\S` is Go's: not a space, tab, line feed, form feed or
    /// carriage return), kept as it is so both read a URL the same.
    private static func appendRestoringSchemeSlashes(_ source: ArraySlice<UInt8>, to out: inout [UInt8]) {
        let spaces: [UInt8] = [0x20, 0x09, 0x0A, 0x0C, 0x0D]
        let start = source.startIndex
        let run = source.firstIndex(where: spaces.contains) ?? source.endIndex
        var colon = min(run, source.endIndex - 3)
        while colon >= start + 1 {
            if source[colon] == UInt8(ascii: ":"), source[colon + 1] == UInt8(ascii: "/"), source[colon + 2] != UInt8(ascii: "/") { break }
            colon -= 1
        }
        guard colon >= start + 1 else {
            out += source
            return
        }
        let scheme = source[start..<colon]
        out += scheme
        out += scheme.elementsEqual("local".utf8) ? Array(":///".utf8) : Array("://".utf8)
        out += source[(colon + 2)...]
    }

    /// Where `pattern` first occurs in `bytes`.
    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = 0
        while index <= bytes.count - pattern.count {
            if bytes[index] == first, bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
