import Foundation
import LoupeCodecs
import LoupeProcessing
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The option declarations (``ImgproxyOption``) are the one place an option is added: every
/// field of ``ProcessingOptions`` is declared and reaches the result key, names are declared
/// once, and the documentation's table is the declarations'.
@Suite struct OptionDeclarationTests {
    /// Walks every stored field of the options (by reflection, so a field added without a
    /// declaration fails here by name): changing each declared field must change the result
    /// key, unless its declaration says it changes only headers; then it must not.
    @Test func everyFieldOfTheOptionsReachesTheResultKey() throws {
        let base = ProcessingOptions()
        let labels = Mirror(reflecting: base).children.compactMap(\.label)
        #expect(labels.count > 40, "reflection sees the options' fields")
        var covered: [String: String] = [:]
        for field in ProcessingOptions.declaredFields {
            var changed = base
            try #require(Self.change(&changed, at: field.keyPath), "field '\(field.key)': add a change for its type to this test")
            let moved = Self.differingLabels(base, changed)
            #expect(moved.count == 1, "field '\(field.key)' changed \(moved)")
            for label in moved {
                #expect(covered[label] == nil, "'\(label)' is declared twice (keys \(covered[label] ?? "") and \(field.key))")
                covered[label] = field.key
            }
            if field.role == .headersOnly {
                #expect(changed.resultKey == base.resultKey, "'\(field.key)' changes only headers but changed the result key")
            } else {
                #expect(changed.resultKey != base.resultKey, "changing '\(moved.first ?? field.key)' leaves the result key unchanged")
                // Once more from the changed value: every value has its own key, not only the default.
                var again = changed
                if Self.change(&again, at: field.keyPath), Self.differingLabels(changed, again).count == 1 {
                    #expect(again.resultKey != changed.resultKey, "'\(field.key)': two values share one result key")
                }
            }
        }
        let undeclared = Set(labels).subtracting(covered.keys)
        #expect(undeclared.isEmpty, "fields of ProcessingOptions no option declares (so not in the result key): \(undeclared.sorted())")
    }

    /// A name or alias belongs to one option, and every supported option's names parse.
    @Test func namesAreDeclaredOnce() throws {
        let names = ImgproxyOption.all.flatMap(\.names)
        #expect(names.count == Set(names).count, "declared twice: \(Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        for option in ImgproxyOption.all {
            for name in option.names {
                #expect(ImgproxyOption.byName[name]?.name == option.name)
                if !option.isSupported {
                    #expect(throws: ServiceError.unsupportedOption(name)) { try ImgproxyURL.options("\(name):1") }
                }
            }
        }
    }

    /// The table in docs/imgproxy-options.md is the declarations' (``ImgproxyOption/documentationTable``).
    /// `LOUPE_WRITE_OPTIONS_TABLE=1` rewrites the page's table from them instead.
    @Test func documentationTableIsTheDeclarations() throws {
        let page = Corpus.repositoryRoot.appendingPathComponent("docs/imgproxy-options.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("| option (aliases) |") }, "the page has the options table")
        let end = lines[start...].firstIndex { !$0.hasPrefix("|") } ?? lines.endIndex
        let table = lines[start..<end].joined(separator: "\n")
        if ProcessInfo.processInfo.environment["LOUPE_WRITE_OPTIONS_TABLE"] == "1" {
            lines.replaceSubrange(start..<end, with: ImgproxyOption.documentationTable.components(separatedBy: "\n"))
            try lines.joined(separator: "\n").write(to: page, atomically: true, encoding: .utf8)
            return
        }
        #expect(table == ImgproxyOption.documentationTable,
                "docs/imgproxy-options.md's table differs from the declarations; LOUPE_WRITE_OPTIONS_TABLE=1 rewrites it")
    }

    /// The fit-box shortcut and the geometry step follow the declared effects: fields that only
    /// refine another change neither, one that acts with a box blocks the shortcut.
    @Test func geometryEffectsDecideTheShortcut() throws {
        #expect(try ImgproxyURL.options("rs:fit:100:100/g:no/c:0:0:so").plainFitBox! == (100, 100))
        #expect(try ImgproxyURL.options("rs:fit:100:100:1").plainFitBox == nil)
        #expect(try ImgproxyURL.options("rs:fill:100:100").plainFitBox == nil)
        #expect(try ImgproxyURL.options("rs:fit:100:100/rot:90").plainFitBox == nil)
        #expect(try !ImgproxyURL.options("el:1/g:so/ex:1").changesGeometry)
        #expect(try ImgproxyURL.options("mw:5").changesGeometry)
    }

    /// The fields whose reflected values differ.
    static func differingLabels(_ a: ProcessingOptions, _ b: ProcessingOptions) -> [String] {
        zip(Mirror(reflecting: a).children, Mirror(reflecting: b).children).compactMap { left, right in
            String(describing: left.value) == String(describing: right.value) ? nil : left.label
        }
    }

    /// Sets the field at `keyPath` to another value than it holds; `false` for a type this
    /// test does not know yet.
    static func change(_ options: inout ProcessingOptions, at keyPath: PartialKeyPath<ProcessingOptions>) -> Bool {
        switch keyPath {
        case let path as WritableKeyPath<ProcessingOptions, Int>: options[keyPath: path] += 7
        case let path as WritableKeyPath<ProcessingOptions, Int?>: options[keyPath: path] = (options[keyPath: path] ?? 0) + 7
        case let path as WritableKeyPath<ProcessingOptions, Double>: options[keyPath: path] += 0.25
        case let path as WritableKeyPath<ProcessingOptions, Double?>: options[keyPath: path] = (options[keyPath: path] ?? 0) + 0.25
        case let path as WritableKeyPath<ProcessingOptions, Bool>: options[keyPath: path].toggle()
        case let path as WritableKeyPath<ProcessingOptions, Bool?>: options[keyPath: path] = !(options[keyPath: path] ?? true)
        case let path as WritableKeyPath<ProcessingOptions, String>: options[keyPath: path] += "x"
        case let path as WritableKeyPath<ProcessingOptions, String?>: options[keyPath: path] = (options[keyPath: path] ?? "") + "x"
        case let path as WritableKeyPath<ProcessingOptions, [String]>: options[keyPath: path].append("x")
        case let path as WritableKeyPath<ProcessingOptions, Gravity>: options[keyPath: path].offsetX += 1
        case let path as WritableKeyPath<ProcessingOptions, Gravity?>:
            options[keyPath: path] = Gravity(.north, offsetX: (options[keyPath: path]?.offsetX ?? 0) + 1)
        case let path as WritableKeyPath<ProcessingOptions, RGBColor?>:
            options[keyPath: path] = RGBColor(red: (options[keyPath: path]?.red ?? 0) &+ 9, green: 1, blue: 2)
        case let path as WritableKeyPath<ProcessingOptions, ImageProcessors.BoxResize.Mode>: options[keyPath: path] = options[keyPath: path] == .fill ? .force : .fill
        case let path as WritableKeyPath<ProcessingOptions, ImageFormat?>: options[keyPath: path] = options[keyPath: path] == .webp ? .png : .webp
        case let path as WritableKeyPath<ProcessingOptions, Set<ImageFormat>>:
            options[keyPath: path].insert(options[keyPath: path].contains(.png) ? .gif : .png)
        case let path as WritableKeyPath<ProcessingOptions, [ImageFormat: Int]>: options[keyPath: path][.jpeg, default: 40] += 1
        case let path as WritableKeyPath<ProcessingOptions, ThumborGeometry?>:
            var geometry = options[keyPath: path] ?? ThumborGeometry()
            geometry.width = .pixels(geometry.width.pixels + 7)
            options[keyPath: path] = geometry
        case let path as WritableKeyPath<ProcessingOptions, WatermarkPosition>:
            options[keyPath: path] = options[keyPath: path] == .north ? .south : .north
        case let path as WritableKeyPath<ProcessingOptions, ThumborFilterSteps>:
            options[keyPath: path].steps.append(ImageProcessors.ChannelTables.brightness(percent: options[keyPath: path].steps.count + 1))
        case let path as WritableKeyPath<ProcessingOptions, [ThumborWatermark]>:
            let call = ThumborFilterCall(name: "watermark", values: ["mark\(options[keyPath: path].count).png", "1", "2", "30"])
            guard let mark = try? ThumborWatermark(call) else { return false }
            options[keyPath: path].append(mark)
        default: return false
        }
        return true
    }
}
