import Foundation

/// File names for `--out`: each source's last path component without its extension, made safe
/// as a file name, and unique within the run (`photo`, `photo-2`, …) in input order, so two
/// sources never overwrite each other's result and a rerun writes the same names.
enum OutputNames {
    /// One stem per source, in order; the caller adds the extension of the format written.
    static func stems(for sources: [FetchSource]) -> [String] {
        var taken = Set<String>()
        return sources.map { source in
            let base = stem(of: source)
            var candidate = base
            var suffix = 2
            // Compared case-insensitively: the folder may be on a case-insensitive file system.
            // Bounded: each source takes one name, so at most `sources.count` are ever taken.
            while taken.contains(candidate.lowercased()), suffix <= sources.count + 1 {
                candidate = "\(base)-\(suffix)"
                suffix += 1
            }
            taken.insert(candidate.lowercased())
            return candidate
        }
    }

    /// The source's last path component without extension, reduced to letters, digits, `-`,
    /// `_` and `.` (no leading dot: no hidden files, no `..`), at most 100 characters.
    static func stem(of source: FetchSource) -> String {
        guard case .success(let url) = source.url, url.scheme?.lowercased() != "data" else { return "image" }
        let name = url.deletingPathExtension().lastPathComponent
        var safe = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        }.prefix(100))
        while safe.hasPrefix(".") { safe.removeFirst() }
        return safe.isEmpty || safe == "_" ? "image" : safe
    }
}
