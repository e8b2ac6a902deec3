/// Points on a local plane (metres east and north), as the matcher's segment grid and the
/// re-import transfer's lines hold them.
extension SIMD2 where Scalar == Double {
    /// The share (0…1) of the way from `a` to `b` of the segment's point nearest this point;
    /// 0 for a segment of no length.
    func share(onSegment a: Self, _ b: Self) -> Double {
        let d = b - a, length2 = (d * d).sum()
        return length2 > 0 ? Swift.max(0, Swift.min(1, ((self - a) * d).sum() / length2)) : 0
    }
}
