// What `Loupe`'s public API is made of, re-exported so that `import Loupe` is all an app needs
// (as Hummingbird's Exports.swift does): `DiskCache` and `MemoryCache` (LoupeCaching) in the
// configuration, `Bitmap` and the decoders (LoupeCodecs) in every response, the processors and
// colour helpers (LoupeProcessing) in requests, `DataLoading` and its loaders (LoupeLoading),
// and swift-log's `Logger` in the configuration. A module that only needs one layer can still
// import that layer alone.
@_exported import LoupeCaching
@_exported import LoupeCodecs
@_exported import LoupeLoading
@_exported import LoupeProcessing
@_exported import Logging
