package io.walsink.storage;

class InMemoryObjectStoreContractTest extends ObjectStoreContractTest {
    @Override
    protected ObjectStore createStore() {
        return new InMemoryObjectStore();
    }
}
