import Foundation

/// The sample loop's own thread (`run`'s pipeline, `record`'s recorder): the loop owns
/// non-Sendable state (chain, writer) and blocks on its source and on SQLite, so it gets
/// a thread rather than one of the cooperative pool's (two, on a Raspberry Pi's cores).
enum SampleLoopThread {
    /// Runs `body` on a new thread named `name` and returns when it ends. Deliberately not
    /// cancellable: the caller asks the loop to stop, and waiting for the thread is what
    /// keeps the store and the file consistent.
    /// - Throws: `PipelineFailure` wrapping what `body` threw.
    static func run(named name: String, _ body: @escaping @Sendable () throws -> Void) async throws(PipelineFailure) {
        let result = await withCheckedContinuation { (finished: CheckedContinuation<PipelineFailure?, Never>) in
            let thread = Thread {
                do {
                    try body()
                    finished.resume(returning: nil)
                } catch {
                    finished.resume(returning: PipelineFailure(underlying: error))
                }
            }
            thread.name = name
            thread.start()
        }
        if let result { throw result }
    }
}
