import Foundation

/// The process's open-file limit, which caps how many connections the hub can hold.
enum DescriptorLimit {
    /// Raises the soft limit to the hard one (systemd's default soft limit is 1,024)
    /// and returns the limit now in force.
    static func raise() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
