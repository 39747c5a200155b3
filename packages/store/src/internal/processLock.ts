/**
 * A lock the kernel keeps for exactly as long as its process lives: a listening Unix socket in Linux's abstract
 * namespace. Binding a name is atomic (the second binder gets EADDRINUSE) and the kernel releases the name when the
 * socket's process ends in any way, `kill -9` included, so no stale lock can outlive its holder and no recycled pid can
 * impersonate one. Abstract names belong to a network namespace: processes in other namespaces (containers) do not see
 * them, which the lockfile beside it accounts for. Other systems have no abstract namespace (`supported` is false).
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"

/** Whether this system has abstract Unix sockets. */
export const supported = process.platform === "linux"

/**
 * The lock's name for a directory: from its device and inode rather than its path, so the same directory reached
 * through a symlink, a bind mount or a container's mount point has one name.
 */
export const nameFor = (dir: string): string => {
  const stat = fs.statSync(dir)
  return "\0sift-datadir-" + createHash("sha256").update(`${stat.dev}:${stat.ino}`).digest("hex").slice(0, 40)
}

/** This process's network namespace (`net:[4026531840]`), the scope abstract names live in; undefined when unknown. */
export const namespace: string | undefined = (() => {
  if (!supported) return undefined
  try {
    return fs.readlinkSync("/proc/self/ns/net")
  } catch {
    return undefined
  }
})()

/** Binds `name`: the listening server (unref'ed, so it never keeps the process alive), or "in-use". */
export const bind = (name: string): Promise<net.Server | "in-use"> =>
  new Promise((resolve, reject) => {
    // Connections only probe whether the name is held (`isHeld`): closed at once.
    const server = net.createServer((socket) => socket.destroy())
    const failed = (error: NodeJS.ErrnoException) => error.code === "EADDRINUSE" ? resolve("in-use") : reject(error)
    server.once("error", failed)
    // exclusive: a cluster worker binds the name itself instead of sharing its primary's.
    server.listen({ path: name, exclusive: true }, () => {
      server.off("error", failed)
      server.on("error", () => {})
      server.unref()
      resolve(server)
    })
  })

/** Releases a bound name (resolves once the socket is closed and the name free). */
export const unbind = (server: net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

/** Whether some process (this one included) holds `name` in this network namespace. */
export const isHeld = (name: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(name)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    // ECONNREFUSED: nobody listens. Anything else (EAGAIN: a full backlog) is taken as held, the safe answer.
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code !== "ECONNREFUSED" && error.code !== "ENOENT"))
  })
