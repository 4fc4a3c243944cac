extension Result where Failure == any Error {
    /// The outcome of `body`: what it returns, or the error it throws.
    ///
    /// Task-group children in Loupe build their `Result` with this, bind it, and only then return
    /// it in a tuple with their index. The shorter `return (index, .success(try await body()))`
    /// inside a `do` block is miscompiled by Swift 6.3.1's optimiser in generic code that is not
    /// specialised, as Loupe's is when an app calls it: the index arrives wrong (README, "Known
    /// toolchain issues").
    init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
