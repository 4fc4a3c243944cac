import Foundation
import Testing
@testable import LoupeLoading

@Suite struct LocalDataLoaderTests {
    @Test func readsFiles() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-local-\(UUID().uuidString).bin")
        let bytes = Data((0..<1_000).map { UInt8($0 % 251) })
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let response = try await LocalDataLoader().loadData(for: DataRequest(url: url))
        #expect(response.data == bytes)
        #expect(response.statusCode == 200)
        await #expect(throws: DataLoadingError.tooLarge(limit: 999, declared: 1_000)) {
            try await LocalDataLoader(maximumSize: 999).loadData(for: DataRequest(url: url))
        }
    }

    @Test func missingFilesAndFoldersAreTypedErrors() async {
        await #expect(throws: DataLoadingError.self) {
            try await LocalDataLoader().loadData(for: DataRequest(url: URL(fileURLWithPath: "/nonexistent/loupe.png")))
        }
        await #expect(throws: DataLoadingError.file(path: "/tmp", reason: "not a regular file")) {
            try await LocalDataLoader().loadData(for: DataRequest(url: URL(fileURLWithPath: "/tmp")))
        }
    }

    @Test func decodesBase64AndPercentEncodedDataURLs() async throws {
        let loader = LocalDataLoader()
        let base64 = try #require(URL(string: "data:image/png;base64,AAEC/w=="))
        #expect(try await loader.loadData(for: DataRequest(url: base64)).data == Data([0, 1, 2, 255]))
        let percent = try #require(URL(string: "data:,A%20b%FF%00"))
        #expect(try await loader.loadData(for: DataRequest(url: percent)).data == Data([65, 32, 98, 255, 0]))
    }

    @Test func malformedOrOversizedDataURLsAreRefused() async throws {
        let loader = LocalDataLoader(maximumSize: 4)
        let noComma = try #require(URL(string: "data:image/png;base64"))
        await #expect(throws: DataLoadingError.invalidURL("data URL without a comma")) { try await loader.loadData(for: DataRequest(url: noComma)) }
        let badPercent = try #require(URL(string: "data:,abc%4"))
        await #expect(throws: DataLoadingError.self) { try await loader.loadData(for: DataRequest(url: badPercent)) }
        let big = try #require(URL(string: "data:;base64," + Data(count: 300).base64EncodedString()))
        await #expect(throws: DataLoadingError.tooLarge(limit: 4, declared: nil)) { try await loader.loadData(for: DataRequest(url: big)) }
        let http = try #require(URL(string: "http://127.0.0.1/x"))
        await #expect(throws: DataLoadingError.unsupportedScheme("http")) { try await loader.loadData(for: DataRequest(url: http)) }
    }
}
