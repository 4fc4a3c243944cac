import LoupeCodecs

extension ImageProcessors {
    /// Several processors applied in order, itself a processor: what the pipeline caches as one
    /// step. Nested chains are flattened, so `a.then(b).then(c)` and `ProcessorChain([a, b, c])`
    /// have the same identifier.
    public struct ProcessorChain: ImageProcessing {
        /// The steps, in the order they run.
        public let processors: [any ImageProcessing]

        /// Chains `processors` in order; an empty chain returns its input unchanged.
        public init(_ processors: [any ImageProcessing]) {
            self.processors = processors.flatMap { step -> [any ImageProcessing] in
                (step as? ProcessorChain)?.processors ?? [step]
            }
        }

        /// The steps' identifiers joined by `|` (an empty chain is `loupe.identity`).
        public var identifier: String {
            processors.isEmpty ? "loupe.identity" : processors.map(\.identifier).joined(separator: "|")
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            var result = bitmap
            for processor in processors { result = try processor.process(result) }
            return result
        }
        /// Each step's own frame handling in turn, so a step that gives every frame one geometry
        /// still does inside a chain.
        public func process(frames: [Bitmap]) throws(ProcessingError) -> [Bitmap] {
            var result = frames
            for processor in processors { result = try processor.process(frames: result) }
            return result
        }
    }
}
