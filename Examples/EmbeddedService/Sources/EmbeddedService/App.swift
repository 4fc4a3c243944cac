import Hummingbird
import Logging
import LoupeServer

/// The application: its own route at `/`, Loupe's image routes under `/images`.
public func buildApplication(settings: ServerSettings, host: String = "127.0.0.1", port: Int = 8080) throws
    -> (app: some ApplicationProtocol, images: ImageRoutes) {
    let logger = Logger(label: "embedded-service")
    let router = Router()
    router.get("/") { _, _ in "Hello from the app's own route\n" }
    let images = try ImageRoutes(settings: settings, logger: logger)
    images.add(to: router, atPath: "/images")
    let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
    return (app, images)
}
