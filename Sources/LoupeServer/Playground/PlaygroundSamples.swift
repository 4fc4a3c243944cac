/// What the playground page offers besides a pasted URL: sample photos, the poster feed and the
/// menu's sections. `loupe serve --dev` fills it with its development origin's URLs; with
/// `--playground` alone it is empty and the page takes pasted source URLs only.
public struct PlaygroundSamples: Sendable {
    /// One section of the menu view: its dishes' source URLs, answered by the playground's
    /// `/playground/menu/<name>` after `latency`, or as a failure when `fails`.
    public struct MenuSection: Sendable {
        /// The section's name (letters, digits and `-` only: it is a path segment).
        public var name: String
        /// Source URLs of the section's dishes.
        public var items: [String]
        /// How long the section's request takes: sections that answer at different times are
        /// what the menu view shows filling in independently.
        public var latency: Duration
        /// Whether the section's request fails (after its latency).
        public var fails: Bool

        /// A section.
        public init(name: String, items: [String], latency: Duration, fails: Bool = false) {
            self.name = name
            self.items = items
            self.latency = latency
            self.fails = fails
        }
    }

    /// Source URLs of the sample photos in the playground's picker.
    public var photos: [String]
    /// Source URLs of the feed's posters, in feed order (failing ones included: the feed drops them).
    public var feed: [String]
    /// The menu's sections, in list order.
    public var menu: [MenuSection]

    /// Samples; none by default.
    public init(photos: [String] = [], feed: [String] = [], menu: [MenuSection] = []) {
        self.photos = photos
        self.feed = feed
        self.menu = menu
    }
}
