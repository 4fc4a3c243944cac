import EmbeddedService
import Foundation
import LoupeServer

// Unsigned URLs for a local try-out; a deployment sets a key and salt instead
// (ServerSettings.keys, or `loupe serve`'s --key/--salt).
var settings = ServerSettings()
settings.allowsUnsigned = true
let (app, images) = try buildApplication(settings: settings)
try await app.runService()
await images.flushCaches()
