/**
 * Solidity used by the VM tests and bench/evm.ts, compiled offline with solc-js 0.8.30.
 * The compile result is cached per process (solc-js takes ~1–2 s).
 */
import solc from 'solc';

export const SOURCES = {
  'Token.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

contract Token {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 have = balanceOf[msg.sender];
        require(have >= value, "ERC20: transfer amount exceeds balance");
        unchecked { balanceOf[msg.sender] = have - value; }
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "ERC20: insufficient allowance");
        uint256 have = balanceOf[from];
        require(have >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            allowance[from][msg.sender] = allowed - value;
            balanceOf[from] = have - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }
}
`,
  'Forwarder.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

contract Forwarder {
    /// Sends all of msg.value on to \`to\` (an internal CALL transfer).
    function forward(address payable to) public payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }

    /// Splits msg.value: \`part\` to a, the rest to b.
    function split(address payable a, address payable b, uint256 part) external payable {
        require(part <= msg.value, "part too large");
        (bool ok1, ) = a.call{value: part}("");
        (bool ok2, ) = b.call{value: msg.value - part}("");
        require(ok1 && ok2, "split failed");
    }

    /// Forwards, then reverts: the inner transfer must not survive.
    function forwardThenRevert(address payable to) external payable {
        forward(to);
        revert("reverted after forwarding");
    }

    /// Calls itself to forward and fail; swallows the failure. The value stays here.
    function tryForward(address payable to) external payable {
        try this.forwardAndFail{value: msg.value}(to) {} catch {}
    }

    function forwardAndFail(address payable to) external payable {
        forward(to);
        revert("inner failure");
    }

    /// Deploys a contract that self-destructs in its constructor, sending \`value\` to \`to\`.
    function bomb(address payable to) external payable {
        new Bomb{value: msg.value}(to);
    }

    receive() external payable {}
}

contract Bomb {
    constructor(address payable to) payable {
        selfdestruct(to);
    }
}

/// Self-destructs to itself while being created: Ethereum would burn its balance; Cairn keeps it.
contract SelfBomb {
    constructor() payable {
        selfdestruct(payable(address(this)));
    }
}
`,
  'Misc.sol':
    `// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

contract Misc {
    uint256 public slot;
    uint256 public other;

    constructor() {
        slot = 7;
        other = 9;
    }

    function fail() external pure {
        revert("Misc: this always fails");
    }

    function failPlain() external pure {
        revert();
    }

    /// Clears two slots: earns an SSTORE refund (EIP-3529).
    function clear() external {
        slot = 0;
        other = 0;
    }

    function set(uint256 v) external {
        slot = v;
    }

    /// Writes each slot several times in one transaction (EIP-2200 original-value gas paths).
    function churn(uint256[] calldata vs) external {
        for (uint256 i = 0; i < vs.length; i++) {
            slot = vs[i];
            other = vs[vs.length - 1 - i];
        }
    }

    function burn(uint256 rounds) external view returns (uint256 acc) {
        for (uint256 i = 0; i < rounds; i++) acc ^= uint256(keccak256(abi.encode(acc, i)));
    }

    function info() external view returns (uint256 chainId, uint256 number, uint256 time, address ` +
    `coinbase, uint256 gasPrice, address origin) {
        return (block.chainid, block.number, block.timestamp, block.coinbase, tx.gasprice, tx.origin);
    }
}
`,
} as const;

export interface Compiled {
  abi: unknown[];
  bytecode: string; // 0x…, creation code
}

let cached: Record<string, Compiled> | undefined;

/** Compiles SOURCES once per process; keys are contract names (Token, Forwarder, Bomb, SelfBomb, Misc). */
export function compileContracts(): Record<string, Compiled> {
  if (cached) return cached;
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(SOURCES).map(([k, content]) => [k, { content }])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const result: Record<string, Compiled> = {};
  for (const file of Object.values(out.contracts)) {
    for (const [name, c] of Object.entries(file)) result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  cached = result;
  return result;
}
