import BikePathDaemon

/// `PipelineService` runs the daemon's loop on its thread.
extension DaemonLoop: PipelineLoop {}
