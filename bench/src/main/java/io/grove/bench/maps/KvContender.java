package io.grove.bench.maps;

import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Registry;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;

/** What the key-value contenders share: their family, and reading the run's scenario (key size, bound). */
abstract class KvContender implements Contender<KvMap> {

    @Override
    public final Family<KvMap> family() {
        return KvFamily.INSTANCE;
    }

    /** This contender's answer for the eviction scenario when it has no size bound. */
    static String noEviction(Scenario scenario) {
        return scenario instanceof EvictionScenario ? "no eviction (unbounded map)" : null;
    }

    static Scenario scenario(WorkerConfig config) {
        return Registry.scenario(config.scenario());
    }

    /** The entry bound of the run, or 0 for an unbounded run. */
    static long capacity(WorkerConfig config) {
        return scenario(config) instanceof EvictionScenario ? EvictionScenario.capacity(config.keys()) : 0;
    }
}
