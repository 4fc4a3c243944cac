import Foundation
import Loupe
import LoupeTestSupport
import Synchronization

// The app's own pieces the documentation's examples call without declaring them: a token
// store, a database, views, a geocoder, a feed. Each records what it was asked, so that the
// tests can check what the example did.

/// An app's store of access tokens: "stale" until refreshed, then "fresh" (the only token the
/// site's `/private/` paths accept).
actor TokenStore {
    private(set) var refreshes = 0

    func current() throws -> String { refreshes == 0 ? "stale" : "fresh" }

    func refresh() throws -> String {
        refreshes += 1
        return "fresh"
    }

    func token(refreshing: Bool) throws -> String { refreshing ? try refresh() : try current() }
}

/// An app's database holding book covers as PNG bytes.
actor CoverDatabase {
    private(set) var reads = 0

    func cover(of bookID: Int) throws -> Data {
        reads += 1
        return try TestImage.png(width: 300, height: 450, seed: bookID)
    }
}

/// A view, a progress bar or a cell: what it was asked to show, in order.
final class Screen: Sendable {
    private let shown = Mutex<[String]>([])

    var all: [String] { shown.withLock { $0 } }

    func show(_ bitmap: Bitmap) { record("\(bitmap.width)x\(bitmap.height)") }
    func show(_ bitmap: Bitmap?) { record(bitmap.map { "\($0.width)x\($0.height)" } ?? "nothing") }
    func show(_ response: ImageResponse?) { show(response?.bitmap) }
    func show(_ bitmap: Bitmap, age: TimeInterval?) { record("\(bitmap.width)x\(bitmap.height)" + (age == nil ? "" : " stale")) }
    func show(_ progress: ImageTask.Progress) { record("progress \(progress.completed)") }

    private func record(_ text: String) { shown.withLock { $0.append(text) } }
}

/// A place on the map.
struct Coordinate: Hashable, Sendable {
    var latitude: Double
    var longitude: Double
}

/// An app's reverse geocoder: a place's name, recording each coordinate it was asked for.
final class Geocoder: Sendable {
    let asked = Recorder<Coordinate>()

    func name(of coordinate: Coordinate) async throws -> String {
        asked.record(coordinate)
        try await Task.sleep(for: .milliseconds(20))
        return coordinate.latitude > 37.55 ? "Jongno-gu" : "Jung-gu"
    }
}

/// An exhibition of a feed, with its poster.
struct Exhibition: Sendable {
    var title: String
    var posterURL: URL
}

/// A feed's cell: the exhibition on its poster's background colour.
struct ExhibitionCell: Sendable {
    var exhibition: Exhibition
    var backgroundColor: RGBColor
}

/// A restaurant menu's sections.
enum Menu: Hashable, Sendable { case main, soup, side }

/// A dish of a menu section.
struct Dish: Sendable, Equatable {
    var name: String
}

/// An app's API for the menu's sections.
struct MenuAPI: Sendable {
    func dishes(_ menu: Menu) async throws -> [Dish] {
        switch menu {
        case .main: [Dish(name: "bibimbap"), Dish(name: "bulgogi")]
        case .soup: [Dish(name: "doenjang-jjigae")]
        case .side: [Dish(name: "kimchi"), Dish(name: "japchae"), Dish(name: "namul")]
        }
    }
}

/// The README's feed cell: an item on its poster's background colour.
struct Cell: Sendable {
    var item: Exhibition
    var background: RGBColor
}
