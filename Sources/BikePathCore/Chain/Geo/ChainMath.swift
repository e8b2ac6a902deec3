// The few libm functions the chain needs. libm is part of the C runtime, not a package
// dependency, so the core still compiles alone with swiftc (see Fuzz/run.sh).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

@inline(__always) func chainCos(_ x: Double) -> Double { cos(x) }
@inline(__always) func chainSin(_ x: Double) -> Double { sin(x) }
@inline(__always) func chainAcos(_ x: Double) -> Double { acos(x) }
@inline(__always) func chainExp(_ x: Double) -> Double { exp(x) }
@inline(__always) func chainPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
