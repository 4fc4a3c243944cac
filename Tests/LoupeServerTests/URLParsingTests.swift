import Foundation
@testable import LoupeServer
import Testing

/// imgproxy's parser settings (`URLParsing`), on the cases imgproxy's own parser tests set them
/// for: a base URL, source replacements, a file name after a base64 source, another arguments
/// separator, and a list of allowed options; each read from imgproxy's variable too.
@Suite struct URLParsingTests {
    static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func parse(_ path: String, _ environment: [String: String]) throws -> ImgproxyURL {
        let settings = try ServerSettings(flags: [:], environment: environment)
        return try ImgproxyURL(path: "/insecure" + path, presets: settings.presets, onlyPresets: settings.onlyPresets,
                               parsing: settings.urlParsing)
    }

    @Test func aBaseURLGoesInFrontOfPlainAndBase64Sources() throws {
        let environment = ["IMGPROXY_BASE_URL": "http://images.dev/"]
        let base64 = try Self.parse("/size:100:100/\(Self.base64("lorem/ipsum.jpg?param=value")).png", environment)
        #expect(base64.source == "http://images.dev/lorem/ipsum.jpg?param=value")
        #expect(base64.options.format == .png)
        let plain = try Self.parse("/size:100:100/plain/lorem/ipsum.jpg@png", environment)
        #expect(plain.source == "http://images.dev/lorem/ipsum.jpg")
        let escaped = try Self.parse("/size:100:100/plain/lorem%2Fipsum.jpg%3Fparam=value@png", environment)
        #expect(escaped.source == "http://images.dev/lorem/ipsum.jpg?param=value")
        // A source that already starts with it is left alone.
        let full = try Self.parse("/size:100:100/plain/http://images.dev/a.jpg", environment)
        #expect(full.source == "http://images.dev/a.jpg")
    }

    @Test func replacementsApplyInTurnBeforeTheBaseURL() throws {
        let environment = ["IMGPROXY_URL_REPLACEMENTS": "test://*/=test2://images.dev/${1}/dolor/;test2://=http://"]
        let base64 = try Self.parse("/size:100:100/\(Self.base64("test://lorem/ipsum.jpg?param=value")).png", environment)
        #expect(base64.source == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        let plain = try Self.parse("/size:100:100/plain/test://lorem/ipsum.jpg@png", environment)
        #expect(plain.source == "http://images.dev/lorem/dolor/ipsum.jpg")
        #expect(plain.options.format == .png)
        // Matched at the start only.
        let other = try Self.parse("/size:100:100/plain/http://x/test://lorem/a.jpg", environment)
        #expect(other.source == "http://x/test://lorem/a.jpg")
    }

    @Test func aFileNameAfterABase64SourceIsIgnoredWhenTheSettingSaysSo() throws {
        let path = "/size:100:100/\(Self.base64("http://images.dev/lorem/ipsum.jpg?param=value")).png/puppy.jpg"
        let parsed = try Self.parse(path, ["IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "true"])
        #expect(parsed.source == "http://images.dev/lorem/ipsum.jpg?param=value")
        #expect(parsed.options.format == .png)
        // Without the setting the file name is part of the base64, which no longer decodes.
        #expect(throws: ServiceError.self) { try Self.parse(path, [:]) }
    }

    @Test func anotherArgumentsSeparator() throws {
        let environment = ["IMGPROXY_ARGUMENTS_SEPARATOR": ",", "IMGPROXY_PRESETS_SEPARATOR": ";", "IMGPROXY_PRESETS": "small=size,50,50"]
        let parsed = try Self.parse("/size,100,100,1/plain/http://images.dev/lorem/ipsum.jpg", environment)
        #expect(parsed.options.width == 100 && parsed.options.height == 100 && parsed.options.enlarge)
        let preset = try Self.parse("/pr,small/plain/http://images.dev/lorem/ipsum.jpg", environment)
        #expect(preset.options.width == 50)
        // ':' separates nothing now: `w:100` is taken for the start of a base64 source, which it is not.
        let error = #expect(throws: ServiceError.self) { try Self.parse("/w:100/plain/http://images.dev/a.jpg", environment) }
        #expect(error?.kind == "badURL")
        #expect(throws: SettingsError.self) { try ServerSettings(flags: ["arguments-separator": "/"], environment: [:]) }
        #expect(throws: SettingsError.self) { try ServerSettings(flags: ["arguments-separator": "::"], environment: [:]) }
    }

    @Test(arguments: [("w:100/h:200", nil), ("w:100/h:200/blur:10", "blur"), ("w:100/h:200/pr:test1", nil),
                      ("w:100/h:200/pr:test1/blur:10", "blur"), ("width:100", "width")] as [(String, String?)])
    func onlyTheAllowedOptions(_ options: String, forbidden: String?) throws {
        let environment = ["IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w,h,pr", "IMGPROXY_PRESETS": "test1=blur:0.2"]
        let path = "/\(options)/\(Self.base64("http://images.dev/lorem/ipsum.jpg?param=value")).png"
        if let forbidden {
            let error = #expect(throws: ServiceError.self) { try Self.parse(path, environment) }
            #expect(error?.status == 403)
            #expect(error?.kind == "forbiddenOption")
            #expect(error?.message.contains("'\(forbidden)'") == true)
        } else {
            // A preset's own options (blur inside test1) are not checked.
            #expect(try Self.parse(path, environment).options.width == 100)
        }
    }

    @Test func replacementPatterns() {
        let twoStars = SourceReplacement(pattern: "s3://*/*/", replacement: "https://$2.example.com/${1}/")
        #expect(twoStars.apply(to: "s3://a/b/c/d.jpg") == "https://b.example.com/a/c/d.jpg")
        // A wildcard takes the longest run that lets the rest match, never a '/'.
        let greedy = SourceReplacement(pattern: "x*y", replacement: "[$1]")
        #expect(greedy.apply(to: "xaybyc") == "[ayb]c")
        #expect(greedy.apply(to: "xa/yb") == "xa/yb")
        let dollars = SourceReplacement(pattern: "a*", replacement: "$$${1}$x${9}")
        #expect(dollars.apply(to: "abc/d") == "$bc/d")
        #expect(SourceReplacement.list("a=b;c") == nil)
        #expect(SourceReplacement.list("a=b=c")?.first?.replacement == "b=c")
        // Many wildcards over a long source: a match found in one pass, none by a search.
        let many = SourceReplacement(pattern: "*a*a*a*a*b", replacement: "")
        let long = String(repeating: "a", count: 20_000)
        #expect(many.apply(to: long) == long)
        #expect(many.apply(to: long + "b!") == "!")
    }
}
