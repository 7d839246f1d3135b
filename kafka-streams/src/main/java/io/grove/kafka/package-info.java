/**
 * Grove in Kafka Streams: a key-value state store on Grove's off-heap ordered map ({@link
 * io.grove.kafka.GroveKeyValueStore}), its suppliers ({@link io.grove.kafka.GroveStores}) and the DSL's store
 * suppliers for a whole topology ({@link io.grove.kafka.GroveDslStoreSuppliers}).
 */
package io.grove.kafka;
