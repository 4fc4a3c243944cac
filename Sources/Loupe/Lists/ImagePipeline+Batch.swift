extension ImagePipeline {
    /// An ``OrderedBatch`` loading the images of `requests`, at most `maximumConcurrency` at
    /// once, responses in request order.
    ///
    /// The pipeline's own limits still hold: at most ``Configuration/maximumConcurrentDataLoads``
    /// downloads at once, however large `maximumConcurrency`.
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
    public func imageBatch<Item: Sendable>(
        for items: [Item], maximumConcurrency: Int = 8,
        request: @escaping @Sendable (Item) -> ImageRequest
    ) -> OrderedBatch<Item, ImageResponse> {
        OrderedBatch(items, maximumConcurrency: maximumConcurrency) { [self] item in
            try await image(for: request(item))
        }
    }
}
