// facecrop-serve: face-aware thumbnails over HTTP. Parses flags and environment, starts the server, and stops it
// gracefully on SIGTERM or SIGINT (requests in flight finish). Everything else is in FaceCropServer.
import FaceCrop
import FaceCropServer
import Glibc
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

FaceCropper.openImageModulesOnDemand()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(ServerConfiguration.help, terminator: "")
    exit(0)
}
if arguments.contains("--version") {
    print(FaceCropper.version)
    exit(0)
}
let configuration: ServerConfiguration
do {
    configuration = try ServerConfiguration.parse(arguments: arguments, environment: ProcessEnvironment.variables)
} catch {
    FileHandleOutput.standardError("Error: \(error.description)\n")
    exit(64)
}
let jsonLogs = configuration.jsonLogs
let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
LoggingSystem.bootstrap { label in
    var handler: any LogHandler = jsonLogs ? JSONLogHandler(label: label) : StreamLogHandler.standardOutput(label: label)
    handler.logLevel = level
    return handler
}
let logger = Logger(label: "facecrop-serve")

let server: ImageServer
do {
    server = try ImageServer(configuration: configuration, logger: logger)
} catch {
    FileHandleOutput.standardError("Error: \(error.description)\n")
    exit(1)
}
/// Set once the server listens: until then a stop is a failure to start, not a shutdown.
let listening = Atomic(false)
let app = server.application { port in
    listening.store(true, ordering: .sequentiallyConsistent)
    logger.notice(
        "listening",
        metadata: [
            "address": "\(configuration.host):\(port)", "slots": "\(configuration.slots)", "queue": "\(configuration.queue)",
            "version": "\(FaceCropper.version)",
        ])
}
/// Says when a graceful shutdown begins. Services stop in reverse order, so this one hears it before the server
/// stops listening and finishes the requests in flight.
struct ShutdownNotice: Service {
    let logger: Logger
    func run() async throws {
        try? await gracefulShutdown()
        if listening.load(ordering: .sequentiallyConsistent) { logger.notice("shutting down: no new connections, finishing requests in flight") }
    }
}
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [.init(service: app), .init(service: ShutdownNotice(logger: logger))], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
do {
    try await group.run()
} catch {
    if !listening.load(ordering: .sequentiallyConsistent) {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host  // IPv6
        FileHandleOutput.standardError("Error: Cannot listen on \(host):\(configuration.port): \(ImageServer.reason(error)).\n")
    } else {
        logger.error("stopped", metadata: ["error": "\(error)"])
    }
    await server.shutdown()
    exit(1)
}
await server.shutdown()
logger.notice("stopped")
