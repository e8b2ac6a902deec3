import BikePathCore
import Foundation

/// Errors the store reports to the daemon and the CLI. Each message says what
/// happened and what the rider or operator can do.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case directoryNotWritable(String, reason: String)
    case futureSchema(path: String, found: Int32, supported: Int32)
    case cannotOpen(String, reason: String)
    /// A read-only command was pointed at a file that does not exist (a mistyped `--db`).
    case noSuchStore(String)
    /// A read-only command found the file unusable; it was left as it was.
    case damaged(String, reason: String)
    case notARegularFile(String)
    /// A command that changes the store cannot write `blocked` (the store, its -wal or -shm, or
    /// its directory): `errno` is EROFS (a read-only mount) or EACCES/EPERM (no permission).
    case notWritable(path: String, blocked: String, errno: Int32)
    /// A reader cannot make the -shm (read-only mount, no permission: `errno`) and the -wal
    /// holds frames, which SQLite reads only through a -shm; opening the file alone would
    /// show the store as it was before them.
    case walNeedsIndex(path: String, errno: Int32)
    case noSuchTrip(String)
    case noSuchDraft(String)
    case noSuchObstacle(String)
    /// A draft number past the end of `drafts list`.
    case noSuchDraftNumber(Int, count: Int)
    /// A prefix that matches more than one id.
    case ambiguousReference(String, matches: Int)
    /// A review page pairing code that is wrong, spent or expired.
    case pairingRefused(String)
    case illegalTransition(draft: String, from: DraftState, to: DraftState)
    case draftNotEditable(String, state: DraftState)
    case invalidEdit(String)
    /// A stored setting (consent, privacy) cannot be decoded; sync sends nothing until it is set again.
    case unreadableSetting(key: String, reason: String)
    case noSuchOutboxRecord(String)
    case notQuarantined(String, state: String)
    /// A manual path the hub would refuse for its fields or street count: the problems, each "field: why".
    case invalidManualPath([String])
    case noSuchManualPath(String)
    /// A sent manual path cannot be deleted: the hub has no delete.
    case manualPathSent(String)

    public var description: String {
        switch self {
        case .directoryNotWritable(let dir, let reason):
            "store directory \(dir) is not writable (\(reason)); recording needs a writable directory — check the mount or pass --db"
        case .futureSchema(let path, let found, let supported):
            "database \(path) has schema version \(found), newer than this bikepathd understands (\(supported)); it was left untouched — upgrade bikepathd or move the file away"
        case .cannotOpen(let path, let reason):
            "cannot open database \(path): \(reason)"
        case .noSuchStore(let path):
            "no store at \(path): nothing was created"
        case .damaged(let path, let reason):
            "database \(path) is damaged (\(reason)); it was left untouched — the daemon moves it aside and starts a fresh store when it next starts, keeping the old file"
        case .notARegularFile(let path):
            "\(path) is not a regular file (a FIFO, device or directory); the store must be a file"
        case .notWritable(let path, let blocked, let code):
            "cannot change the store \(path): \(blocked == path ? "the file" : blocked) \(Self.cause(code)); this command writes to it — "
                + (code == EROFS
                    ? "remount it read-write (mount -o remount,rw MOUNTPOINT) or copy the store with its -wal to a writable place"
                    : "run it as a user who may write the store (root, bikepath or a member of group bikepath: docs/install.md)")
                + "; commands that only read it (drafts list/show, stats, export, verify, diagnose) work as it is"
        case .walNeedsIndex(let path, let code):
            "cannot read the store \(path): its -wal holds changes that SQLite reads only through \(path)-shm, and that cannot be made here "
                + "(\(Self.cause(code))); copy the store with its -wal to a writable directory and read it there, or let the daemon stop "
                + "cleanly once where it is writable (its stop folds the -wal into the store)"
        case .noSuchTrip(let id): "no trip with id \(id)"
        case .noSuchDraft(let id): "no draft with id \(id) (see `bikepathd drafts list`)"
        case .noSuchObstacle(let id): "no obstacle with id \(id) in this draft (see `bikepathd drafts show`)"
        case .noSuchDraftNumber(let n, let count):
            "no draft number \(n) and no id starting with \(n): `bikepathd drafts list` shows \(count)"
        case .ambiguousReference(let ref, let matches): "'\(ref)' matches \(matches) ids; type more of it"
        case .pairingRefused(let reason): "pairing refused: \(reason)"
        case .illegalTransition(let id, let from, let to):
            // In the rider's words, where a queued draft and a confirmed one are both "confirmed".
            from.word == to.word
                ? "draft \(id) is \(from.word) already; nothing to change" : "draft \(id) is \(from.word); it cannot become \(to.word)"
        case .draftNotEditable(let id, let state):
            "draft \(id) is \(state.word); only drafts to review can be edited"
        case .invalidEdit(let reason): "invalid edit: \(reason)"
        case .unreadableSetting(let key, let reason):
            "the stored setting \(key) cannot be read (\(reason)); nothing is sent until it is set again (`bikepathd sync consent` / `bikepathd sync privacy`)"
        case .noSuchOutboxRecord(let id): "no record with id \(id) in the outbox (see `bikepathd sync status`)"
        case .notQuarantined(let id, let state): "record \(id) is \(state), not quarantined; only quarantined records can be re-queued"
        case .invalidManualPath(let problems): "not a path the hub can take: \(problems.joined(separator: "; ")); nothing was stored"
        case .noSuchManualPath(let id): "no path with id \(id) (see `bikepathd path list`)"
        case .manualPathSent(let id):
            "path \(id) was sent: the hub made it and counts it as your rating, and it has no delete; a path named wrong is "
                + "corrected by adding the right one (`bikepathd path add`), which the hub counts as well"
        }
    }

    /// "is on a read-only file system", "is not writable by this user (Permission denied)".
    static func cause(_ code: Int32) -> String {
        switch code {
        case EROFS: "is on a read-only file system"
        case EACCES, EPERM: "is not writable by this user (\(String(cString: strerror(code))))"
        default: "cannot be written (\(String(cString: strerror(code))))"
        }
    }
}
