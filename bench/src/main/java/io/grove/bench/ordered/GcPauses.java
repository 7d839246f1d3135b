package io.grove.bench.ordered;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The stop-the-world pauses of the JVM's collectors between {@link #start} and {@link #stop}, from the collectors'
 * notifications: how many, their total and the longest. G1's concurrent cycles ("G1 Concurrent GC") run beside the
 * application and are not counted; its young, mixed and full collections are.
 */
final class GcPauses implements NotificationListener {
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong max = new AtomicLong();

    private GcPauses() {}

    static GcPauses start() {
        GcPauses pauses = new GcPauses();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter && !gc.getName().contains("Concurrent")) {
                emitter.addNotificationListener(pauses, null, null);
                pauses.emitters.add(emitter);
            }
        }
        return pauses;
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
            return;
        }
        long millis = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo()
                .getDuration();
        count.incrementAndGet();
        total.addAndGet(millis);
        max.accumulateAndGet(millis, Math::max);
    }

    /** Stops listening; pauses reported after this are not counted (notifications arrive a little late). */
    void stop() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    long count() {
        return count.get();
    }

    long totalMillis() {
        return total.get();
    }

    long maxMillis() {
        return max.get();
    }
}
