/**
 * Grove: concurrent key-value maps whose keys and values live off the Java heap.
 *
 * <p>Only the API packages are exported; everything under {@code io.grove.internal} is implementation.
 */
module io.grove {
    exports io.grove;
    exports io.grove.view;
    exports io.grove.serial;
}
