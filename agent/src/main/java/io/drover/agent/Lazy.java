package io.drover.agent;

import java.util.function.Supplier;

/** A value made on first use, once. */
final class Lazy<T> implements Supplier<T> {
    private final Supplier<T> maker;
    private volatile T value;

    Lazy(Supplier<T> maker) {
        this.maker = maker;
    }

    @Override
    public T get() {
        T made = value;
        if (made == null) {
            synchronized (this) {
                made = value;
                if (made == null) {
                    made = maker.get();
                    value = made;
                }
            }
        }
        return made;
    }
}
