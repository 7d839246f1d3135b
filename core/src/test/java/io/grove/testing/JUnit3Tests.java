package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestFailure;
import junit.framework.TestResult;
import junit.framework.TestSuite;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.AssertionFailedError;

/**
 * Runs JUnit 3 tests (such as the suites Guava testlib builds) on the Jupiter engine, without the Vintage engine:
 * a {@link TestSuite} becomes a {@link DynamicContainer} and each test in it a {@link DynamicTest}.
 *
 * <p>Each test runs on its own thread with a time limit, so one that never returns fails instead of hanging the
 * build. After each test, pass or fail, {@code afterEach} runs (e.g. to close what the test created). A failure is
 * reported as an {@link AssertionFailedError} whose message starts with the JUnit 3 test's name (reports name
 * dynamic tests by index) and whose cause is what the test threw.
 */
public final class JUnit3Tests {
    private JUnit3Tests() {}

    /** The tests of {@code test} as dynamic nodes; {@code afterEach} runs after every test. */
    public static Stream<DynamicNode> toDynamicNodes(Test test, Duration timeLimitPerTest, Runnable afterEach) {
        return Stream.of(toNode(test, timeLimitPerTest, afterEach));
    }

    private static DynamicNode toNode(Test test, Duration timeLimit, Runnable afterEach) {
        if (test instanceof TestSuite suite) {
            List<DynamicNode> children = new ArrayList<>();
            for (Enumeration<Test> tests = suite.tests(); tests.hasMoreElements(); ) {
                children.add(toNode(tests.nextElement(), timeLimit, afterEach));
            }
            String name = suite.getName() != null ? suite.getName() : suite.toString();
            return DynamicContainer.dynamicContainer(name, children.stream());
        }
        String name = test instanceof TestCase testCase ? testCase.getName() : test.toString();
        return DynamicTest.dynamicTest(name, () -> {
            try {
                assertTimeoutPreemptively(timeLimit, () -> {
                    run(test);
                    return null;
                }, () -> name + " did not finish in " + timeLimit);
            } catch (Throwable t) {
                // Reports list dynamic tests by index; the message carries the JUnit 3 test's own name.
                throw new AssertionFailedError(name + " failed: " + t, t);
            } finally {
                afterEach.run();
            }
        });
    }

    private static void run(Test test) throws Throwable {
        if (test instanceof TestCase testCase) {
            testCase.runBare(); // setUp, the test method, tearDown; throws what the test threw
            return;
        }
        TestResult result = new TestResult();
        test.run(result);
        rethrowFirst(result.errors());
        rethrowFirst(result.failures());
    }

    private static void rethrowFirst(Enumeration<TestFailure> failures) throws Throwable {
        if (failures.hasMoreElements()) {
            Throwable thrown = failures.nextElement().thrownException();
            throw thrown != null ? thrown : new AssertionError("failed without an exception");
        }
    }

    /** The number of test cases in {@code test}. */
    public static int count(Test test) {
        return test.countTestCases();
    }
}
