// Child process for the lazy codec library tests (Tests/LoupeCodecsTests/
// CodecLibraryLoadingTests.swift): a process of its own, so that what it maps is what it did —
// in the test process, another test's decode may have loaded any library first. Not a product:
// the tests launch it from the build directory.
//
//   LoupeCodecLibraryProbe [--missing heif|avif|jxl|tiff|svg]... FILE...
//
// --missing points that library at a file name that does not exist, through the shim's
// test-only override, before anything loads it. Then it prints, one line each (tab-separated):
//   start                    <mapped>    before anything
//   sniff  FILE  FORMAT      <mapped>    after sniffing every file's format from its bytes
//   decode FILE  OUTCOME     <mapped>    after decoding each file: "ok WxH", or
//                                        "libraryUnavailable FORMAT LIBRARY", or "error TEXT"
// where <mapped> lists the codec libraries in /proc/self/maps ("libheif,libavif", or "-").
import CLoupeCodecs
import Foundation
import LoupeCodecs
import LoupeTestSupport

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// The lazily loaded codec libraries currently mapped into this process.
func mapped() -> String {
    let maps = processMaps()
    let found = ["libheif", "libavif", "libjxl", "libtiff", "librsvg-2"].filter { maps.contains("/\($0).so") }
    return found.isEmpty ? "-" : found.joined(separator: ",")
}

func say(_ fields: String...) {
    print(fields.joined(separator: "\t"))
}

var arguments = Array(CommandLine.arguments.dropFirst())
var files: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    guard argument == "--missing" else {
        files.append(argument)
        continue
    }
    guard let name = arguments.first else { fail("--missing needs heif, avif, jxl, tiff or svg") }
    arguments.removeFirst()
    let library: lc_codec_library = switch name {
    case "heif": LC_LIBRARY_HEIF
    case "avif": LC_LIBRARY_AVIF
    case "jxl": LC_LIBRARY_JXL
    case "tiff": LC_LIBRARY_TIFF
    case "svg": LC_LIBRARY_SVG
    default: fail("--missing \(name): not heif, avif, jxl, tiff or svg")
    }
    guard lc_codec_library_override_for_testing(library, "libloupe-test-missing-\(name).so.0") == LC_OK else {
        fail("--missing \(name): the library was already loaded")
    }
}

say("start", mapped())
var contents: [(file: String, data: Data)] = []
for file in files {
    guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    contents.append((file, data))
}
for (file, data) in contents {
    say("sniff", file, ImageFormat(sniffing: data).map(\.rawValue) ?? "none", mapped())
}
for (file, data) in contents {
    let outcome: String
    do {
        let image = try ImageDecoder().decode(data)
        outcome = "ok \(image.metadata.width)x\(image.metadata.height)"
    } catch let ImageCodecError.libraryUnavailable(format, library, _) {
        outcome = "libraryUnavailable \(format.rawValue) \(library)"
    } catch {
        outcome = "error \(error)"
    }
    say("decode", file, outcome, mapped())
}
