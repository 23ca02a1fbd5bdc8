package io.drover.bench;

import io.drover.transport.zmtp.Zmtp;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hostile clients against a Drover server's transport ports, for the soak run (bench/soak.sh): random and oversized
 * frames, connections opened and dropped, half-open connections left hanging, huge and excess subscriptions. Loopback
 * only; every loop is bounded by the duration and stops by itself; prints what it did.
 *
 * <p>Usage: {@code HostileLoad [--host 127.0.0.1] [--publish-port 4505] [--request-port 4506] [--seconds 600]
 * [--churn 10000] [--half-open 500] [--seed 1]}
 */
public final class HostileLoad {
    private final String host;
    private final int publishPort;
    private final int requestPort;
    private final long deadline;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    private HostileLoad(String host, int publishPort, int requestPort, long seconds) {
        this.host = host;
        this.publishPort = publishPort;
        this.requestPort = requestPort;
        this.deadline = System.nanoTime() + seconds * 1_000_000_000L;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        HostileLoad load = new HostileLoad(opts.getOrDefault("host", "127.0.0.1"),
                Integer.parseInt(opts.getOrDefault("publish-port", "4505")), Integer.parseInt(opts.getOrDefault("request-port", "4506")),
                Long.parseLong(opts.getOrDefault("seconds", "600")));
        if (!load.host.startsWith("127.") && !load.host.equals("localhost")) {
            throw new IllegalArgumentException("HostileLoad attacks loopback only");
        }
        long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
        int churn = Integer.parseInt(opts.getOrDefault("churn", "10000"));
        int halfOpen = Integer.parseInt(opts.getOrDefault("half-open", "500"));
        Thread[] workers = {
                Thread.ofPlatform().name("frames").start(() -> load.frames(new Random(seed))),
                Thread.ofPlatform().name("subscriptions").start(() -> load.subscriptions(new Random(seed + 1))),
                Thread.ofPlatform().name("churn").start(() -> load.churn(churn)),
                Thread.ofPlatform().name("half-open").start(() -> load.halfOpen(halfOpen)),
        };
        Thread reporter = Thread.ofPlatform().daemon().start(() -> {
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    return;
                }
                System.out.println("so far: " + load.report());
            }
        });
        for (Thread t : workers) {
            t.join();
        }
        reporter.interrupt();
        System.out.println("hostile load done: " + load.report());
    }

    private boolean running() {
        return System.nanoTime() < deadline;
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    private String report() {
        StringBuilder out = new StringBuilder();
        new java.util.TreeMap<>(counts).forEach((k, v) -> out.append(String.format(Locale.ROOT, "%s=%d ", k, v.get())));
        return out.toString().strip();
    }


    /** Sends the bytes, then reads until the server closes (at most 10 s); counts closed or left. */
    private void attack(int port, byte[] bytes, String what) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(bytes);
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            while (in.read(buffer) >= 0) {
                // the server's greeting; read until it closes
            }
            count(what + ".closed");
        } catch (java.net.SocketTimeoutException e) {
            count(what + ".not-closed");
        } catch (IOException e) {
            count(what + ".closed");
        }
    }

    /** Random bytes, and frames announcing random (often huge) sizes, before and after a handshake. */
    private void frames(Random random) {
        while (running()) {
            int port = random.nextBoolean() ? requestPort : publishPort;
            byte[] noise = new byte[random.nextInt(4096)];
            random.nextBytes(noise);
            switch (random.nextInt(4)) {
                case 0 -> attack(port, noise, "random-bytes");
                case 1 -> attack(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), ByteBuffer.wrap(noise)), "random-frames");
                case 2 -> attack(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"),
                        Zmtp.longHeader(0, random.nextLong())), "oversized-frame");
                default -> attack(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"),
                        Zmtp.longHeader(0, 15L << 20), ByteBuffer.wrap(new byte[1 << 20])),
                        "large-partial-frame");
            }
        }
    }

    /** 10 KB subscriptions, and more subscriptions than allowed. */
    private void subscriptions(Random random) {
        while (running()) {
            byte[] prefix = new byte[random.nextBoolean() ? 10_000 : 65];
            random.nextBytes(prefix);
            attack(publishPort, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("SUB"), Zmtp.subscription(prefix)),
                    "huge-subscribe");
            ByteBuffer[] many = new ByteBuffer[12];
            many[0] = ByteBuffer.wrap(Zmtp.greeting());
            many[1] = Zmtp.ready("SUB");
            for (int i = 2; i < many.length; i++) {
                many[i] = Zmtp.subscription(("t" + random.nextInt()).getBytes());
            }
            attack(publishPort, Zmtp.bytes(many), "excess-subscriptions");
        }
    }

    /** Connections opened and dropped at once: {@code total} of them, spread over the run. */
    private void churn(int total) {
        long spacing = Math.max(1, (deadline - System.nanoTime()) / Math.max(1, total));
        for (int i = 0; i < total && running(); i++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, i % 2 == 0 ? requestPort : publishPort), 5000);
                count("opened-and-dropped");
            } catch (IOException e) {
                count("churn-failed");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(spacing);
        }
    }

    /** Keeps {@code size} connections whose greeting never finishes; replaces those the server closes. */
    private void halfOpen(int size) {
        Deque<Socket> open = new ArrayDeque<>();
        while (running()) {
            while (open.size() < size && running()) {
                try {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress(host, open.size() % 2 == 0 ? requestPort : publishPort), 5000);
                    s.getOutputStream().write(Zmtp.greeting(), 0, 3);
                    open.add(s);
                    count("half-open");
                } catch (IOException e) {
                    count("half-open-failed");
                }
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                break;
            }
            open.removeIf(s -> {
                try {
                    s.getOutputStream().write(0); // fails once the server has closed it
                    return false;
                } catch (IOException e) {
                    closeQuietly(s);
                    count("half-open-closed-by-server");
                    return true;
                }
            });
        }
        open.forEach(HostileLoad::closeQuietly);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // done with it
        }
    }
}
