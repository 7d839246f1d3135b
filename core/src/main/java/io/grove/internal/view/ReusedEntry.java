package io.grove.internal.view;

import io.grove.view.Handle;
import java.util.Map;

/** The one entry a zero-copy entry stream points at key and value after key and value; read-only. */
public final class ReusedEntry implements Map.Entry<Handle, Handle> {
    private Handle key;
    private Handle value;

    public ReusedEntry set(Handle key, Handle value) {
        this.key = key;
        this.value = value;
        return this;
    }

    @Override
    public Handle getKey() {
        return key;
    }

    @Override
    public Handle getValue() {
        return value;
    }

    @Override
    public Handle setValue(Handle value) {
        throw new UnsupportedOperationException("zero-copy scan entries are read-only; use zc().put");
    }
}
