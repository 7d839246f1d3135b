package io.grove.internal.memory;

import io.grove.Reclamation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/** {@link SliceRegister} in Lincheck's stress mode, which runs the off-heap accesses for real. */
public class SliceRegisterLincheckTest extends SliceRegister {
    /**
     * One pool for all scenarios (Lincheck makes a fresh instance per scenario and never closes it); each scenario
     * has its own register cell, and the one slice a finished scenario leaves behind is never freed (a few MB in
     * all).
     */
    private static final Pool POOL = new Pool(1 << 20, 256L << 20, Reclamation.NOVA);

    public SliceRegisterLincheckTest() {
        super(POOL);
    }

    @Test
    void stress() {
        new StressOptions().iterations(40).invocationsPerIteration(2_000).threads(3).actorsPerThread(4)
                .check(SliceRegisterLincheckTest.class);
    }
}
