extension ImageRequest {
    /// Whether an ``ImageTask`` shows a progressive JPEG before its last byte, and how often: the
    /// choice behind ``ImageRequest/previews`` and ``ImagePipeline/Configuration/previews``.
    ///
    /// With previews on, a task downloading a progressive JPEG sends
    /// ``ImageTask/Event/preview(_:)`` once the first scan has arrived whole, then again as
    /// later scans arrive, at most once every ``minimumInterval``; the final image replaces them
    /// (``ImageTask/Event/finished(_:)``). Each preview decodes the bytes received so far, at
    /// the request's thumbnail size. Baseline JPEGs, every other format, and data from a cache,
    /// a file or the caller's bytes give none, at no cost beyond reading a JPEG's header markers.
    /// Only tasks make previews: ``ImagePipeline/image(for:)-(ImageRequest)`` has no events to
    /// send them with.
    ///
    /// ```swift
    /// var request = ImageRequest(url: url)
    /// request.previews = .progressive(every: .milliseconds(100))
    /// for await event in pipeline.imageTask(with: request).events {
    ///     if case .preview(let preview) = event { view.show(preview.bitmap) }
    /// }
    /// ```
    public struct PreviewPolicy: Sendable, Hashable {
        /// The shortest time between two previews; `nil` when previews are off.
        public var minimumInterval: Duration?
        /// The smallest ``ImageRequest/thumbnail`` that gets previews: a smaller thumbnail (a
        /// list cell, an avatar) gets none, since each preview decodes all the bytes received so
        /// far, which costs as much for a small thumbnail as for a large one. Requests for the
        /// full size always get previews when they are on.
        public var smallestThumbnail: Int

        /// No previews: the task's image comes when it is complete.
        public static let off = PreviewPolicy(minimumInterval: nil, smallestThumbnail: .max)

        /// Previews after the first complete scan, then at most one every 250 ms, for the full
        /// size and thumbnails from 300 pixels: the default.
        public static let standard = progressive()

        /// Previews after the first complete scan, then at most one every `interval`, for the
        /// full size and thumbnails from `smallestThumbnail` pixels.
        ///
        /// - Parameters:
        ///   - interval: the shortest time between two previews (a negative one counts as zero).
        ///   - smallestThumbnail: the smallest thumbnail size, in pixels, that gets previews.
        /// - Returns: a policy with previews on, for ``ImageRequest/previews`` or
        ///   ``ImagePipeline/Configuration/previews``.
        public static func progressive(every interval: Duration = .milliseconds(250), smallestThumbnail: Int = 300) -> PreviewPolicy {
            PreviewPolicy(minimumInterval: max(.zero, interval), smallestThumbnail: smallestThumbnail)
        }

        /// Whether a request for `thumbnail` gets previews under this policy.
        func allows(thumbnail: Int?) -> Bool {
            guard minimumInterval != nil else { return false }
            guard let thumbnail else { return true }
            return thumbnail >= smallestThumbnail
        }
    }
}
