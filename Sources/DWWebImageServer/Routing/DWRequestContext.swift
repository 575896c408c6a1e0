// DWRequestContext: the request context of serve's own listener, Hummingbird's basic one plus the client's address.
import Hummingbird
import NIOCore

/// What a handler of ``DWImageServer/run(onListening:onMetricsListening:)`` knows about its request beyond the
/// request itself: Hummingbird's core storage and the connection's remote address (the access log's `client_ip`,
/// as Hummingbird's own tracing middleware reads it). Made per request on its connection's event loop.
struct DWRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
