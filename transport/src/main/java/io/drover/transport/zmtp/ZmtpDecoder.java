package io.drover.transport.zmtp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a ZMTP 3 byte stream as it arrives in pieces: the peer's greeting, then frames, handed on as whole messages
 * or commands. Every size is checked against the limits from the frame header, before anything is allocated, and a
 * frame's body grows only as its bytes arrive (reserved from the endpoint's {@link ReceiveBudget}), so a peer that
 * announces a large frame costs only what it really sends.
 */
public final class ZmtpDecoder {
    /** Receives what the stream carries. */
    public interface Sink {
        void message(List<byte[]> frames) throws ZmtpException;

        /** A command: its name and its whole body (name included). */
        void command(String name, byte[] body) throws ZmtpException;
    }

    private static final int FIRST_CHUNK = 64 * 1024;

    private enum Stage { GREETING, HEADER, BODY }

    private final ZmtpLimits limits;
    private final ReceiveBudget budget;
    private Stage stage = Stage.GREETING;
    private final byte[] greeting = new byte[Zmtp.GREETING_LENGTH];
    private int greetingRead;
    private final byte[] header = new byte[9];
    private int headerRead;
    private byte[] body;
    private int bodySize;
    private int bodyRead;
    private int flags;
    private final List<byte[]> parts = new ArrayList<>();
    private long messageBytes;
    /** Bytes reserved from the budget for the message being read. */
    private long reserved;

    public ZmtpDecoder(ZmtpLimits limits, ReceiveBudget budget) {
        this.limits = limits;
        this.budget = budget;
    }

    /** Consumes every byte of {@code in}, delivering complete messages and commands to {@code sink}. */
    public void feed(ByteBuffer in, Sink sink) throws ZmtpException {
        while (in.hasRemaining()) {
            switch (stage) {
                case GREETING -> readGreeting(in);
                case HEADER -> readHeader(in, sink);
                case BODY -> readBody(in, sink);
            }
        }
    }

    /** How many bytes of the peer's greeting have arrived (the handshake answers its signature, then its version). */
    public int greetingBytes() {
        return greetingRead;
    }

    /** Gives back what the unfinished message holds to the budget (the connection is closing). */
    public void release() {
        budget.release(reserved);
        reserved = 0;
        body = null;
        parts.clear();
    }

    private void readGreeting(ByteBuffer in) throws ZmtpException {
        int n = Math.min(in.remaining(), Zmtp.GREETING_LENGTH - greetingRead);
        in.get(greeting, greetingRead, n);
        int before = greetingRead;
        greetingRead += n;
        if (before <= Zmtp.SIGNATURE_LENGTH && greetingRead > Zmtp.SIGNATURE_LENGTH && !Zmtp.acceptableSignature(greeting)) {
            throw new ZmtpException("greeting", "the peer does not speak ZMTP 3");
        }
        if (greetingRead == Zmtp.GREETING_LENGTH) {
            if (!Zmtp.nullMechanism(greeting)) {
                throw new ZmtpException("greeting", "the peer asks for a security mechanism other than NULL");
            }
            stage = Stage.HEADER;
        }
    }

    private void readHeader(ByteBuffer in, Sink sink) throws ZmtpException {
        if (headerRead == 0) {
            flags = in.get() & 0xFF;
            header[headerRead++] = (byte) flags;
            if ((flags & ~(Zmtp.MORE | Zmtp.LONG | Zmtp.COMMAND)) != 0) {
                throw new ZmtpException("flags", "bad frame flags " + flags);
            }
            if ((flags & Zmtp.COMMAND) != 0 && (flags & Zmtp.MORE) != 0) {
                throw new ZmtpException("flags", "a command frame flagged MORE");
            }
            if ((flags & Zmtp.COMMAND) != 0 && !parts.isEmpty()) {
                throw new ZmtpException("order", "a command inside a multi-frame message");
            }
            return;
        }
        int length = (flags & Zmtp.LONG) != 0 ? 9 : 2;
        int n = Math.min(in.remaining(), length - headerRead);
        in.get(header, headerRead, n);
        headerRead += n;
        if (headerRead < length) {
            return;
        }
        long size = length == 9 ? ByteBuffer.wrap(header, 1, 8).getLong() : header[1] & 0xFF;
        headerRead = 0;
        startBody(size);
        if (bodySize == 0) {
            frameDone(sink);
        }
    }

    private void startBody(long size) throws ZmtpException {
        boolean command = (flags & Zmtp.COMMAND) != 0;
        if (size < 0) {
            throw new ZmtpException("oversize", "a frame announces more than 2^63 bytes");
        }
        if (command && size > ZmtpLimits.MAX_COMMAND_BYTES) {
            throw new ZmtpException("oversize", "a command of " + size + " bytes is over the limit of " + ZmtpLimits.MAX_COMMAND_BYTES);
        }
        if (!command && messageBytes + size > limits.maxMessageBytes()) {
            throw new ZmtpException("oversize", "a message of " + (messageBytes + size) + " bytes is over the limit of "
                    + limits.maxMessageBytes());
        }
        if (!command && parts.size() + 1 > limits.maxFrames()) {
            throw new ZmtpException("frames", "a message of more than " + limits.maxFrames() + " frames");
        }
        bodySize = (int) size;
        bodyRead = 0;
        body = new byte[Math.min(bodySize, FIRST_CHUNK)];
        reserve(body.length);
        stage = Stage.BODY;
    }

    private void readBody(ByteBuffer in, Sink sink) throws ZmtpException {
        if (bodyRead == body.length) {
            int grown = (int) Math.min(bodySize, Math.max(FIRST_CHUNK, 2L * body.length));
            reserve(grown - body.length);
            body = Arrays.copyOf(body, grown);
        }
        int n = Math.min(in.remaining(), body.length - bodyRead);
        in.get(body, bodyRead, n);
        bodyRead += n;
        if (bodyRead == bodySize) {
            frameDone(sink);
        }
    }

    private void reserve(long bytes) throws ZmtpException {
        if (!budget.reserve(bytes)) {
            throw new ZmtpException("budget", "the endpoint's receive budget is spent; dropping the connection");
        }
        reserved += bytes;
    }

    private void frameDone(Sink sink) throws ZmtpException {
        byte[] frame = body;
        body = null;
        stage = Stage.HEADER;
        if ((flags & Zmtp.COMMAND) != 0) {
            int nameLength = frame.length == 0 ? -1 : frame[0] & 0xFF;
            if (nameLength < 1 || nameLength > frame.length - 1) {
                throw new ZmtpException("command", "a command without a whole name");
            }
            releaseReserved();
            sink.command(new String(frame, 1, nameLength, StandardCharsets.US_ASCII), frame);
            return;
        }
        parts.add(frame);
        messageBytes += frame.length;
        if ((flags & Zmtp.MORE) == 0) {
            List<byte[]> message = List.copyOf(parts);
            parts.clear();
            messageBytes = 0;
            releaseReserved();
            sink.message(message);
        }
    }

    private void releaseReserved() {
        budget.release(reserved);
        reserved = 0;
    }
}
