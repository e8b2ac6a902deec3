import Dispatch
#if canImport(Glibc)
    import Glibc
#endif

/// The signals the daemon acts on, as an async stream: SIGTERM/SIGINT stop it,
/// SIGHUP reloads the configuration. The default actions are turned off first,
/// so a signal is never lost between start and the first `for await`.
public enum SignalEvents {
    /// A stream of the signal numbers received; their default actions are ignored from this
    /// call on. Ending the stream cancels the handlers.
    public static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let keep = SourceBox(sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    private final class SourceBox: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { sources.forEach { $0.cancel() } }
    }
}
