package io.drover.transport.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.net.AddressBlock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SignInsPerAddressTest {
    /** A clock that moves only when the test moves it; starts 10 s into a minute. */
    static final class TestClock extends Clock {
        volatile long millis = 1_700_000_040_000L + 10_000;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    final TestClock clock = new TestClock();

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByAddress(AddressBlock.literal(literal));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static InetAddress ipv4(int n) {
        try {
            return InetAddress.getByAddress(new byte[] {10, (byte) (n >> 16), (byte) (n >> 8), (byte) n});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    SignInsPerAddress limiter(int perMinute, String... exempt) {
        return new SignInsPerAddress(new AddressLimits(0, perMinute, AddressBlock.parseAll(List.of(exempt))), clock);
    }

    static int admitted(SignInsPerAddress limiter, InetAddress source, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            n += limiter.tryAcquire(source) ? 1 : 0;
        }
        return n;
    }

    @Test
    void anAddressGetsItsLimitPerMinuteAndNoMore() {
        SignInsPerAddress limiter = limiter(5);
        assertThat(admitted(limiter, ip("203.0.113.7"), 5)).isEqualTo(5);
        assertThat(limiter.tryAcquire(ip("203.0.113.7"))).isFalse();
        assertThat(admitted(limiter, ip("203.0.113.7"), 100)).isZero();
    }

    @Test
    void addressesAreCountedApart() {
        SignInsPerAddress limiter = limiter(3);
        assertThat(admitted(limiter, ip("203.0.113.7"), 10)).isEqualTo(3);
        assertThat(admitted(limiter, ip("203.0.113.8"), 10)).isEqualTo(3);
        assertThat(admitted(limiter, ip("2001:db8::7"), 10)).isEqualTo(3);
        assertThat(admitted(limiter, ip("2001:db8::8"), 10)).as("IPv6 addresses count one by one").isEqualTo(3);
        assertThat(limiter.addresses()).isEqualTo(4);
    }

    @Test
    void theNextMinuteStartsAfresh() {
        SignInsPerAddress limiter = limiter(2);
        InetAddress a = ip("203.0.113.7");
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
        clock.millis += 49_999; // 59.999 s into the minute: still the same window
        assertThat(limiter.tryAcquire(a)).isFalse();
        clock.millis += 1; // the minute turned
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
        clock.millis += 3 * 60_000; // minutes without a sign-in
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
    }

    @Test
    void aClockThatGoesBackStartsANewWindowInsteadOfStickingToTheOld() {
        SignInsPerAddress limiter = limiter(2);
        InetAddress a = ip("203.0.113.7");
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
        clock.millis -= 10 * 60_000;
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
        clock.millis += 10 * 60_000; // back where it was: a new window again
        assertThat(admitted(limiter, a, 5)).isEqualTo(2);
    }

    @Test
    void zeroMeansNoLimitAndNothingIsKept() {
        SignInsPerAddress limiter = limiter(0);
        assertThat(admitted(limiter, ip("203.0.113.7"), 50_000)).isEqualTo(50_000);
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.tryAcquire(ipv4(i))).isTrue();
        }
        assertThat(limiter.addresses()).isZero();
    }

    @Test
    void exemptAddressesAreNeitherLimitedNorKept() {
        SignInsPerAddress limiter = limiter(1, "127.0.0.0/8", "::1", "198.51.100.0/24");
        // (an IPv4 peer on a dual-stack socket shows as IPv4: ::ffff:127.0.0.2 is 127.0.0.2)
        for (String exempt : List.of("127.0.0.1", "127.9.8.7", "::1", "198.51.100.200", "::ffff:7f00:2")) {
            assertThat(admitted(limiter, ip(exempt), 1000)).as(exempt).isEqualTo(1000);
        }
        assertThat(limiter.addresses()).isZero();
        // next to the blocks: counted
        for (String counted : List.of("128.0.0.1", "::2", "198.51.101.1", "::ffff:8000:2", "fe80::1")) {
            assertThat(admitted(limiter, ip(counted), 10)).as(counted).isEqualTo(1);
        }
    }

    @Test
    void theDefaultsExemptLoopbackOnlyAndStopAFloodFromOneAddress() {
        SignInsPerAddress limiter = new SignInsPerAddress(AddressLimits.defaults(), clock);
        assertThat(admitted(limiter, ip("127.0.0.1"), 30_000)).as("30,000 agents of a load generator").isEqualTo(30_000);
        assertThat(admitted(limiter, ip("::1"), 10_000)).isEqualTo(10_000);
        assertThat(admitted(limiter, ip("192.0.2.1"), 100_000)).isEqualTo(AddressLimits.DEFAULT_SIGN_INS_PER_MINUTE);
    }

    @Test
    void aFloodFromManyAddressesKeepsAtMostTheBoundAndTheRestShareOneLimit() {
        SignInsPerAddress limiter = new SignInsPerAddress(new AddressLimits(0, 2, List.of()), clock, 100);
        int admitted = 0;
        for (int i = 0; i < 10_000; i++) {
            admitted += limiter.tryAcquire(ipv4(i)) ? 1 : 0;
        }
        assertThat(limiter.addresses()).isEqualTo(100);
        assertThat(admitted).as("100 told apart, one each, and 2 for all the others together").isEqualTo(102);
        // the addresses told apart keep their own count
        assertThat(limiter.tryAcquire(ipv4(5))).isTrue();
        assertThat(limiter.tryAcquire(ipv4(5))).isFalse();
        assertThat(limiter.tryAcquire(ipv4(5_000))).isFalse();
        // and the next minute forgets them all
        clock.millis += 60_000;
        assertThat(limiter.tryAcquire(ipv4(5_000))).isTrue();
        assertThat(limiter.addresses()).isEqualTo(1);
    }

    @Test
    void theRealBoundHoldsUnderAMillionDistinctAddresses() {
        SignInsPerAddress limiter = limiter(1);
        for (int i = 0; i < 1_000_000; i++) {
            limiter.tryAcquire(ipv4(i));
        }
        assertThat(limiter.addresses()).isEqualTo(SignInsPerAddress.MAX_ADDRESSES);
    }

    @Test
    void concurrentSignInsFromOneAddressGetExactlyTheLimit() throws Exception {
        SignInsPerAddress limiter = limiter(1000);
        AtomicInteger admitted = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 1000; i++) {
                    if (limiter.tryAcquire(ip("192.0.2.1"))) {
                        admitted.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(admitted.get()).isEqualTo(1000);
    }

    @Test
    void anUnknownSourceIsAProgrammingError() {
        assertThatThrownBy(() -> limiter(1).tryAcquire(null)).isInstanceOf(NullPointerException.class);
    }
}
