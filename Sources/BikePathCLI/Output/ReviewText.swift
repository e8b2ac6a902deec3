import BikePathDaemon
import BikePathReview
import BikePathStore

/// `review pair`'s words: the code and where to type it. A code alone left the rider asking which
/// page; the URLs are the ones `review` and `run` log when they start (`ReviewAddress.phoneURLs`).
public enum ReviewText {
    /// The address the page is served on: `review.listen` of the file (what `run` serves), else
    /// `bikepathd review`'s default.
    public static func pageAddress(configured listen: String) -> ReviewAddress? {
        ReviewAddress(listen.isEmpty ? ReviewText.defaultListen : listen)
    }

    /// `bikepathd review`'s address when neither `--listen` nor `review.listen` names one.
    public static let defaultListen = "127.0.0.1:8080"

    /// The URLs a phone opens for the page on `address`.
    public static func urls(_ address: ReviewAddress) -> [String] {
        address.phoneURLs(port: address.port, interfaces: InterfaceAddress.current())
    }

    /// `pairing code 123456: open http://192.168.1.20:8080 and type it within 10 minutes`, and when
    /// the file sets no `review.listen`, that `run` serves no page and `bikepathd review` does.
    public static func pairing(code: String, urls: [String], listenConfigured: Bool) -> String {
        let minutes = Int(Store.pairingLifetimeSeconds / 60)
        var text = "pairing code \(code): open \(urls.joined(separator: " or ")) and type it within \(minutes) minutes"
        if !listenConfigured {
            text +=
                "\n(\(ConfigurationKey.path(\.review.listen)) is not set, so the daemon serves no page: start it with `bikepathd review`)"
        }
        return text
    }
}
