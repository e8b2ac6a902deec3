#if canImport(Glibc)
    import Glibc
#endif

enum SignalSetup {
    /// libiio's network backend and libgps write to sockets without MSG_NOSIGNAL: when iiod
    /// or gpsd dies, a write would raise SIGPIPE and kill the whole daemon. With it ignored
    /// the write fails with EPIPE, which the sources count and recover from.
    static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }
}
