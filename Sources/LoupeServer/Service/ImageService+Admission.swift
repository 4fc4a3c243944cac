/// Admission of image requests, with the refusals counted for `/metrics`.
extension ImageService {
    /// Admits a request that must finish within `deadline` (see ``AdmissionGate``), or throws
    /// the 429 that says why not.
    func admit(deadline: Duration) throws(ServiceError) -> AdmissionGate.Ticket {
        switch gate.admit(deadline: deadline) {
        case .success(let ticket):
            return ticket
        case .failure(let refused):
            metrics.countRefusal(refused.reason)
            throw refused.serviceError
        }
    }
}
