package io.drover.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The heap a benchmark needed, from the collector's own notifications: the most used just before a collection
 * (the peak, live data and garbage not yet collected) and the most still used just after one (close to the peak of
 * live data; a young collection leaves old garbage in place, so it is an upper bound).
 */
final class HeapPeak {
    private final AtomicLong peakUsed = new AtomicLong();
    private final AtomicLong peakAfterGc = new AtomicLong();

    private HeapPeak() {
    }

    static HeapPeak watch() {
        HeapPeak peak = new HeapPeak();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((notification, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        GarbageCollectionNotificationInfo info =
                                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                        peak.peakUsed.accumulateAndGet(used(info.getGcInfo().getMemoryUsageBeforeGc()), Math::max);
                        peak.peakAfterGc.accumulateAndGet(used(info.getGcInfo().getMemoryUsageAfterGc()), Math::max);
                    }
                }, null, null);
            }
        }
        return peak;
    }

    /** The most heap used, including now (the run may end between collections). */
    long peakUsed() {
        Runtime r = Runtime.getRuntime();
        return Math.max(peakUsed.get(), r.totalMemory() - r.freeMemory());
    }

    long peakAfterGc() {
        return peakAfterGc.get();
    }

    /** Heap pools only: the collector also reports non-heap pools (metaspace, code cache). */
    private static long used(Map<String, MemoryUsage> pools) {
        long sum = 0;
        for (var e : pools.entrySet()) {
            if (isHeap(e.getKey())) {
                sum += e.getValue().getUsed();
            }
        }
        return sum;
    }

    private static boolean isHeap(String pool) {
        for (var p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().equals(pool)) {
                return p.getType() == java.lang.management.MemoryType.HEAP;
            }
        }
        return false;
    }
}
