import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeProcessing
import Synchronization

/// One task's previews of a download while it arrives (``ImageRequest/PreviewPolicy``): handed
/// the body so far after each chunk, it finds the complete scans of a progressive JPEG and, after
/// the first and then at most once per interval, decodes the bytes holding them in the
/// processing queue, at the request's thumbnail size, and hands the result to the task.
///
/// A preview decodes the prefix of the body that ends where the next scan starts, as it is:
/// libjpeg reads the missing end of the image as the end of the data, so nothing is copied or
/// appended. Decoding the prefix again for each preview, rather than keeping a libjpeg
/// decompressor in buffered-image mode fed as bytes arrive, keeps no decoder state (nor its
/// coefficient buffers, 2 bytes per sample of the whole image) alive across the download, needs
/// no suspending data source, and goes through the decoder every final image goes through (DCT
/// scaling, orientation, colour management, limits); its cost, an entropy decode of the prefix
/// per preview, is bounded by the interval.
///
/// Other data is given up on from its first bytes or its JPEG header: after that a chunk costs
/// one atomic load. Previews never enter a cache; one decode runs at a time, cancelled when the
/// last byte arrives (the final image's decode comes next) or by ``stop()``, after which no
/// preview is handed over.
final class ProgressivePreviewer: Sendable {
    /// Processor work a preview may take, in pixel operations per pixel of the decoded preview
    /// (`ProcessingCost`'s unit): a resize, a crop or a colour table costs a few to a few dozen;
    /// a wide blur or a sharpen costs more and is left out of previews.
    static let processingOperationsPerPixel = 64.0

    private struct State {
        var scans = ProgressiveJPEGScans()
        /// Complete scans in the latest preview decoded or being decoded.
        var previewedScans = 0
        var decode: Task<Void, Never>?
        var lastPreview: ContinuousClock.Instant?
        var isStopped = false
    }

    private let state = Locked(State())
    /// Set once the data is not a progressive JPEG, its last byte has arrived, or the task ended:
    /// later chunks return at once.
    private let isDone = Atomic<Bool>(false)
    private let request: ImageRequest
    private let interval: Duration
    private let context: StageContext
    private let priority: LoadPriority
    private let deliver: @Sendable (ImageTask.Preview) -> Void

    /// A previewer for `request`, making previews at most every `interval` at `priority` and
    /// handing them to `deliver`.
    init(request: ImageRequest, interval: Duration, context: StageContext, priority: LoadPriority,
         deliver: @escaping @Sendable (ImageTask.Preview) -> Void) {
        self.request = request
        self.interval = interval
        self.context = context
        self.priority = priority
        self.deliver = deliver
    }

    /// The body so far: starts a preview's decode when a scan completed since the last one, the
    /// interval has passed and no decode is running.
    func received(_ body: Data) {
        guard !isDone.load(ordering: .relaxed) else { return }
        let superseded: Task<Void, Never>? = state.withLock { state in
            guard !state.isStopped else { return nil }
            state.scans.advance(over: body)
            guard state.scans.kind != .notProgressive, !state.scans.isEnded else {
                isDone.store(true, ordering: .relaxed)
                // The whole image has arrived and its own decode comes next: a preview still
                // decoding would only compete with it, and be dropped after it.
                return state.scans.isEnded ? state.decode : nil
            }
            guard state.scans.completeScans > state.previewedScans, state.decode == nil,
                  state.lastPreview.map({ $0.duration(to: .now) >= interval }) ?? true
            else { return nil }
            let scans = state.scans.completeScans, prefix = body.prefix(state.scans.decodableLength)
            state.previewedScans = scans
            // Detached: the decode belongs to this previewer, not to the download that reported
            // the bytes (nor to its task-locals); kept under the lock `stop()` takes to cancel it.
            state.decode = Task.detached(priority: request.priority.taskPriority) { [self] in
                await makePreview(of: prefix, scans: scans)
            }
            return nil
        }
        superseded?.cancel()
    }

    /// Stops making previews: cancels the decode running, and none is handed over after this
    /// returns.
    func stop() {
        isDone.store(true, ordering: .relaxed)
        let decode = state.withLock { state in
            state.isStopped = true
            defer { state.decode = nil }
            return state.decode
        }
        decode?.cancel()
    }

    private func makePreview(of prefix: Data, scans: Int) async {
        let decoder = context.configuration.decoder, limits = context.configuration.decodingLimits
        let request = self.request
        var preview: ImageTask.Preview?
        do {
            let (made, _) = try await context.runProcessingWork(priority: priority) { [context] in
                // Counted when it runs, whether or not it decodes.
                context.recorder.record(.previewDecodes)
                return try Self.preview(of: prefix, scans: scans, request: request, decoder: decoder, limits: limits)
            }
            preview = made
        } catch {
            // A preview that does not decode is skipped: the final image has the last word.
            context.logger.debug("no preview", metadata: ["key": "\(request.imageKey)", "scans": "\(scans)", "error": "\(error)"])
        }
        state.withLock { state in
            state.decode = nil
            // Handed over under the lock `stop()` takes: nothing follows the task's end.
            guard let preview, !state.isStopped else { return }
            state.lastPreview = .now
            deliver(preview)
        }
    }

    /// The preview of `prefix`, the first `scans` scans of a progressive JPEG: decoded as the
    /// decode stage decodes (at the thumbnail size, upright, in sRGB), then processed by the
    /// request's processors if they are cheap (``processingOperationsPerPixel``).
    static func preview(of prefix: Data, scans: Int, request: ImageRequest, decoder: any ImageDecoding,
                        limits: DecodingLimits) throws -> ImageTask.Preview {
        var container = try DecodeStage.decodeWork(prefix, thumbnail: request.thumbnail, decoding: request.imageKey.decoding,
                                                   decoder: decoder, limits: limits)
        guard isCheap(request.processors, on: container.bitmap) else {
            return ImageTask.Preview(container: container, scans: scans, receivedBytes: prefix.count, isProcessed: false)
        }
        let cancellation = WorkCancellation.current
        for processor in request.processors {
            try cancellation?.check(ProcessingError.cancelled)
            container.bitmap = try processor.process(container.bitmap)
        }
        return ImageTask.Preview(container: container, scans: scans, receivedBytes: prefix.count, isProcessed: true)
    }

    /// Whether every one of `processors` estimates its cost and together, each estimated on
    /// `bitmap`'s size, they stay within ``processingOperationsPerPixel``.
    static func isCheap(_ processors: [any ImageProcessing], on bitmap: Bitmap) -> Bool {
        var operations = 0.0
        for processor in processors {
            guard let estimating = processor as? any CostEstimating else { return false }
            operations += estimating.estimatedCost(width: bitmap.width, height: bitmap.height).operations
        }
        return operations <= processingOperationsPerPixel * Double(bitmap.width) * Double(bitmap.height)
    }
}
