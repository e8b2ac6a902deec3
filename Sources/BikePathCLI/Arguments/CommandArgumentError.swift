/// An error in what a user typed on the command line, found by the library that
/// interprets it; `bikepathd` reports it as a usage error (exit 64).
public protocol CommandArgumentError: Error, CustomStringConvertible {}
