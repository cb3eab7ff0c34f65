import Foundation
import ImportTestSupport
import Store
import TestSupport

extension SharedStore {
    /// Registers a listener whose events go to a new inbox.
    func listen<Event>(to topic: ListenerTopic<Event>) throws -> (StoreListener, Inbox<Event>) {
        let inbox = Inbox<Event>()
        let listener = try listen(to: topic, onError: { inbox.fail($0) }, onEvent: inbox.receive)
        return (listener, inbox)
    }
}
