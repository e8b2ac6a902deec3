#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Geodesic {
    static let flattening = 1 / 298.257223563  // WGS84 f

    /// Metres between two positions in degrees on the WGS84 ellipsoid by
    /// Vincenty's inverse formula, as gpsd's `earth_distance` computes it, so that
    /// speeds derived from positions agree with gpsd's to the centimetre (the
    /// decoder's use; the chain sums short steps with `distance`, which needs no
    /// iteration). Falls back to a spherical estimate for nearly antipodal points
    /// where the iteration does not converge.
    static func vincentyDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let a = semiMajorAxis, f = flattening, b = a * (1 - flattening), degrees = degreesToRadians
        let l = (lon2 - lon1) * degrees
        let u1 = atan((1 - f) * tan(lat1 * degrees))
        let u2 = atan((1 - f) * tan(lat2 * degrees))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = l
        for _ in 0..<100 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let x = cosU2 * sinLambda
            let y = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            let sinSigma = (x * x + y * y).squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda =
                l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let u2b = cos2Alpha * (a * a - b * b) / (b * b)
                let bigA = 1 + u2b / 16384 * (4096 + u2b * (-768 + u2b * (320 - 175 * u2b)))
                let bigB = u2b / 1024 * (256 + u2b * (-128 + u2b * (74 - 47 * u2b)))
                let deltaSigma =
                    bigB * sinSigma
                    * (cos2SigmaM + bigB / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        return 6_371_009
            * acos(
                max(
                    -1,
                    min(
                        1,
                        sin(lat1 * degrees) * sin(lat2 * degrees)
                            + cos(lat1 * degrees) * cos(lat2 * degrees) * cos(l))))
    }
}
