import { describe, expect, it } from "vitest";
import { isPublicAddress, PrivateTargetError, publicAddresses } from "#core/automations/runs/egress";

const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "::ffff:8.8.8.8",
  "2606:4700::1111",
  "2a00:1450:4001:81c::200e",
];

const refused = {
  loopback: ["127.0.0.1", "127.255.255.254", "::1"],
  rfc1918: ["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1"],
  linkLocal: ["169.254.169.254", "169.254.0.1", "fe80::1", "febf::1", "fe80::1%eth0"],
  carrierGradeNat: ["100.64.0.1", "100.127.255.254"],
  uniqueLocal: ["fc00::1", "fd00::1", "fdff:ffff::1"],
  ipv4Mapped: ["::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "::ffff:10.0.0.1"],
  ipv4Compatible: ["::7f00:1", "::a9fe:a9fe"],
  nat64: ["64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b:1::1"],
  sixToFourAndTeredo: ["2002:7f00:1::", "2002:c0a8:101::1", "2001::1"],
  multicast: ["224.0.0.1", "239.255.255.250", "ff02::1", "ff05::1:3"],
  unspecified: ["0.0.0.0", "0.1.2.3", "::"],
  broadcast: ["255.255.255.255"],
  reserved: ["198.18.0.1", "198.19.255.255", "240.0.0.1", "192.0.2.1", "192.0.0.1", "2001:db8::1", "100::1"],
  notAnAddress: ["", "localhost", "example.com", "999.1.1.1"],
};

describe("HttpRequest target addresses", () => {
  it.each(allowed)("allows the public unicast address %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(Object.entries(refused).flatMap(([kind, addresses]) => addresses.map((address) => [kind, address])))(
    "refuses %s address %s",
    (_kind, address) => {
      expect(isPublicAddress(address!)).toBe(false);
    },
  );

  it("refuses a host when any of its addresses is not public, naming that address", async () => {
    const resolve = async () => [
      { address: "8.8.8.8", family: 4 },
      { address: "::ffff:7f00:1", family: 6 },
    ];
    const refusal = await publicAddresses("mixed.example", resolve).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PrivateTargetError);
    expect((refusal as Error).message).toBe(
      "The host mixed.example resolves to a private or loopback address (::ffff:7f00:1); automations may only call public receivers.",
    );
  });

  it("returns every address of a public host, and takes an IP literal as its own address", async () => {
    const addresses = [
      { address: "8.8.8.8", family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ];
    expect(await publicAddresses("public.example", async () => addresses)).toEqual(addresses);
    expect(await publicAddresses("1.1.1.1", async () => [])).toEqual([{ address: "1.1.1.1", family: 4 }]);
    await expect(publicAddresses("nowhere.example", async () => [])).rejects.toThrow("could not be resolved");
  });
});
