extension ImagePipeline {
    /// An ``OrderedBatch`` loading the images of `requests`, at most `maximumConcurrency` at
    /// once, responses in request order.
    ///
    /// The pipeline's own limits still hold: at most ``Configuration/maximumConcurrentDataLoads``
    /// downloads at once, however large `maximumConcurrency`.
    ///
    /// - Parameters:
    ///   - requests: the images to load, in the order their responses come back.
    ///   - maximumConcurrency: at most this many requests load at once (at least 1).
    /// - Returns: the batch; nothing loads until its results are asked for
    ///   (``OrderedBatch/run(failurePolicy:progress:)``, ``OrderedBatch/results(window:)``,
    ///   ``OrderedBatch/collectResults(progress:)``).
    public func imageBatch(
        for requests: [ImageRequest], maximumConcurrency: Int = 8
    ) -> OrderedBatch<ImageRequest, ImageResponse> {
        imageBatch(for: requests, maximumConcurrency: maximumConcurrency) { $0 }
    }

    /// An ``OrderedBatch`` loading one image per item of `items` (the poster feed: a feed's posters),
    /// the request for each made by `request`, responses in item order. Chain
    /// ``OrderedBatch/map(_:)`` to turn each item and its image into what the list shows.
    ///
    /// ```swift
    /// let cells = try await pipeline.imageBatch(for: feed) { ImageRequest(url: $0.posterURL) }
    ///     .map { entry, poster in FeedCell(entry, background: try poster.bitmap.dominantColor().backgroundColor) }
    ///     .run(failurePolicy: .dropFailed)
    /// ```
    ///
    /// - Parameters:
    ///   - items: what the list shows, one image each, in the order their results come back.
    ///   - maximumConcurrency: at most this many images load at once (at least 1); the pipeline's
    ///     ``Configuration/maximumConcurrentDataLoads`` still bounds the downloads.
    ///   - request: makes the request for an item's image, when that item's load starts.
    /// - Returns: the batch; nothing loads until its results are asked for.
    public func imageBatch<Item: Sendable>(
        for items: [Item], maximumConcurrency: Int = 8,
        request: @escaping @Sendable (Item) -> ImageRequest
    ) -> OrderedBatch<Item, ImageResponse> {
        OrderedBatch(items, maximumConcurrency: maximumConcurrency) { [self] item in
            try await image(for: request(item))
        }
    }
}
