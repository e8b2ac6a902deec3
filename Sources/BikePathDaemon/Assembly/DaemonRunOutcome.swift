extension DaemonRunReport {
    /// `run`'s exit status (docs/daemon.md): 0 everything committed; 1 the recording
    /// could not be read to its end; 74 (EX_IOERR) outputs lost to a full disk.
    public var exitStatus: Int32 {
        if inputFailure != nil { return 1 }
        return everythingCommitted ? 0 : 74
    }

    /// The journal's last line: what was committed, and what was lost and why.
    public var closingLine: String {
        if let inputFailure { return "the recording could not be read to its end; what was read is committed: \(inputFailure)" }
        if everythingCommitted { return "stopped; everything committed" }
        return "stopped; NOT everything committed: the disk was full; lost: \(uncommitted), and \(summary.droppedTrackPoints) track "
            + "points dropped while it was full — free space on the store's disk (`bikepathd diagnose` keeps the counts)"
    }
}
