import Foundation
import LoupeCodecs
import LoupeLoading

/// The kinds of setting that only the image service has: sources, folders, addresses, S3's
/// endpoint, region and buckets, presets files and qualities per format.
extension SettingType where Value == SourcePolicy {
    /// Comma-separated source URL prefixes (``SourcePolicy``).
    static var sourcePolicy: SettingType {
        SettingType(valueName: "<list>", read: { text, origin throws(SettingsError) in
            try SourcePolicy(allowedPrefixes: SettingType<[String]>.list().read(text, origin))
        }, describe: { _ in nil })
    }
}

extension SettingType where Value == RootedFileSystem? {
    /// A folder that must exist, read through ``RootedFileSystem``; empty leaves it unset.
    static var rootedFolder: SettingType {
        SettingType(valueName: "<path>", read: { folder, origin throws(SettingsError) in
            guard !folder.isEmpty else { return nil }
            do throws(RootedFileError) {
                return try RootedFileSystem(root: folder)
            } catch .rootUnusable(let reason) {
                throw SettingsError("\(origin) '\(folder)' \(reason)")
            } catch {
                throw SettingsError("\(origin) '\(folder)': \(error)")
            }
        }, describe: { _ in nil })
    }
}

extension SettingType where Value == URL? {
    /// A folder, created when needed; empty leaves it unset.
    static var folder: SettingType {
        SettingType(valueName: "<path>", read: { folder, _ in folder.isEmpty ? nil : URL(fileURLWithPath: folder) },
                                        describe: { _ in nil })
    }
}

extension SettingType where Value == URL? {
    /// An S3 server's `http(s)://host[:port]` URL; empty leaves it unset.
    static var s3Endpoint: SettingType {
        SettingType(valueName: "<url>", read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { return nil }
            guard let url = URL(string: text), (try? S3Configuration(endpoint: url)) != nil else {
                throw SettingsError("\(origin) '\(text)' is not an http(s)://host[:port] URL")
            }
            return url
        }, describe: { $0?.absoluteString })
    }
}

extension SettingType where Value == String? {
    /// An S3 region name (`eu-west-1`); empty leaves it unset.
    static var s3Region: SettingType {
        SettingType(valueName: "<region>", read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { return nil }
            guard (try? S3Configuration(region: text)) != nil else { throw SettingsError("\(origin) '\(text)' is not a region name like eu-west-1") }
            return text
        }, describe: { $0 })
    }
}

extension SettingType where Value == ResultStoragePlace? {
    /// `s3://bucket[/prefix]`; empty leaves it unset.
    static var resultStorage: SettingType {
        SettingType(valueName: "<s3://bucket/prefix>", read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { return nil }
            guard let place = ResultStoragePlace(text) else {
                throw SettingsError("\(origin) '\(text)' is not s3://bucket[/prefix] (an S3 bucket name; no '.' or '..' in the prefix)")
            }
            return place
        }, describe: { $0?.description })
    }
}

extension SettingType where Value == [String] {
    /// Comma-separated S3 bucket names.
    static var s3Buckets: SettingType {
        list("<list>") { bucket, origin throws(SettingsError) in
            guard S3Location.isValidBucket(bucket) else { throw SettingsError("\(origin) '\(bucket)' is not an S3 bucket name") }
        }
    }
}

extension SettingType where Value == Set<String> {
    /// Comma-separated IPv4 or IPv6 addresses.
    static var ipAddresses: SettingType {
        SettingType(valueName: "<list>", read: { text, origin throws(SettingsError) in
            let addresses = try SettingType<[String]>.list { address, origin throws(SettingsError) in
                var v4 = in_addr(), v6 = in6_addr()
                guard inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 else {
                    throw SettingsError("\(origin) '\(address)' is not an IP address")
                }
            }.read(text, origin)
            return Set(addresses)
        }, describe: { _ in nil })
    }
}

extension SettingType where Value == [String] {
    /// The lines of a presets file (at most ``Presets/maximumFileBytes``, UTF-8).
    static var presetLines: SettingType {
        SettingType(valueName: "<path>", read: { path, origin throws(SettingsError) in
            guard let handle = FileHandle(forReadingAtPath: path) else { throw SettingsError("\(origin) '\(path)' cannot be read") }
            defer { try? handle.close() }
            let data: Data
            do {
                data = try handle.read(upToCount: Presets.maximumFileBytes + 1) ?? Data()
            } catch {
                throw SettingsError("\(origin) '\(path)' cannot be read")
            }
            guard data.count <= Presets.maximumFileBytes else {
                throw SettingsError("\(origin) '\(path)' is larger than \(Presets.maximumFileBytes >> 20) MB")
            }
            guard let text = String(data: data, encoding: .utf8) else { throw SettingsError("\(origin) '\(path)' is not UTF-8 text") }
            return text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
        }, describe: { _ in nil })
    }
}

extension SettingType where Value == [ImageFormat: Int] {
    /// `format=quality` pairs, comma-separated (imgproxy's format names; quality 1...100).
    static var formatQualities: SettingType {
        SettingType(valueName: "<list>", read: { text, origin throws(SettingsError) in
            // imgproxy's reading: the pairs given over its defaults, which the others keep.
            var qualities = ServerSettings.defaultFormatQuality
            for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                let parts = item.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let format = ImgproxyURL.qualityFormat(named: parts[0].lowercased()) else {
                    throw SettingsError("\(origin) '\(item)' is not format=quality with an image format (jpeg, webp, avif, ...)")
                }
                guard let quality = Int(parts[1]), (1...100).contains(quality) else {
                    throw SettingsError("\(origin) '\(item)': the quality is not a whole number in 1...100")
                }
                if let format { qualities[format] = quality }
            }
            return qualities
        }, describe: { qualities in
            qualities.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
        })
    }
}

extension SettingType where Value == Character {
    /// One character that can separate an option's arguments: not `/` (which separates
    /// options), not `@` or `.` (which start a source's extension), not a letter or digit.
    static var argumentsSeparator: SettingType {
        SettingType(valueName: "<char>", read: { text, origin throws(SettingsError) in
            guard text.count == 1, let character = text.first, !"/@.".contains(character), !character.isLetter, !character.isNumber,
                  !character.isWhitespace
            else { throw SettingsError("\(origin) '\(text)' is not one character other than a letter, digit, space, '/', '@' or '.'") }
            return character
        }, describe: { String($0) })
    }
}

extension SettingType where Value == String {
    /// Text put in front of sources; empty (the default) puts nothing.
    static var sourcePrefix: SettingType {
        SettingType(valueName: "<url>", read: { text, _ in text }, describe: { $0.isEmpty ? nil : $0 })
    }
}

extension SettingType where Value == [SourceReplacement] {
    /// imgproxy's `pattern=replacement;pattern=replacement` (``SourceReplacement``).
    static var sourceReplacements: SettingType {
        SettingType(valueName: "<list>", read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { return [] }
            guard let list = SourceReplacement.list(text) else {
                throw SettingsError("\(origin) '\(text)' is not a ';'-separated list of pattern=replacement")
            }
            return list
        }, describe: { _ in nil })
    }
}

extension SettingType where Value == [String] {
    /// Comma-separated `name=options` presets. A comma inside a preset's options (when
    /// `--arguments-separator` is `,`) stays in it: an item without `=` continues the preset
    /// before it.
    static var presetList: SettingType {
        SettingType(valueName: "<list>", read: { text, _ in
            var presets: [String] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                if !item.contains("="), let last = presets.popLast() {
                    presets.append(last + "," + item)
                } else {
                    presets.append(String(item))
                }
            }
            return presets.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }, describe: { $0.isEmpty ? nil : $0.joined(separator: ",") })
    }
}

extension SettingType where Value == String {
    /// A URL path of plain segments (`/images`, `/a/b`); empty for the root.
    static var pathPrefix: SettingType {
        SettingType(valueName: "<path>", read: { text, origin throws(SettingsError) in
            let segments = text.split(separator: "/")
            guard segments.allSatisfy({ segment in
                segment != "." && segment != ".." && segment.utf8.allSatisfy { byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-_.~".utf8.contains(byte)
                }
            }) else { throw SettingsError("\(origin) '\(text)' is not a path of letters, digits, '-', '_', '.' and '~' segments") }
            return segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
        }, describe: { $0.isEmpty ? nil : $0 })
    }
}
