import solc from 'solc';

/** Compiles one Solidity file with the bundled solc (cached per source). */
const cache = new Map<string, Record<string, { abi: any[]; bytecode: string; deployed: string }>>();

export function compileSolidity(source: string, opts: { optimizer?: boolean; evmVersion?: string } = {}) {
  const k = `${opts.optimizer}/${opts.evmVersion}/${source}`;
  const hit = cache.get(k);
  if (hit) return hit;
  const input = {
    language: 'Solidity',
    sources: { 'Contract.sol': { content: source } },
    settings: {
      optimizer: { enabled: opts.optimizer ?? false, runs: 200 },
      ...(opts.evmVersion ? { evmVersion: opts.evmVersion } : {}),
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
  const res: Record<string, { abi: any[]; bytecode: string; deployed: string }> = {};
  for (const [name, c] of Object.entries<any>(out.contracts['Contract.sol'])) {
    res[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployed: `0x${c.evm.deployedBytecode.object}` };
  }
  cache.set(k, res);
  return res;
}

export const ERC20_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract TestToken {
    string public name = "Test Token";
    string public symbol = "TT";
    uint8 public decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 private scratch;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "insufficient token balance");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(allowance[from][msg.sender] >= value, "allowance exceeded");
        require(balanceOf[from] >= value, "insufficient token balance");
        allowance[from][msg.sender] -= value;
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }

    function alwaysReverts() external pure returns (uint256) {
        revert("this always reverts");
    }

    // Sets then clears a slot: the clear earns a refund, so a post-refund estimate would be too low.
    function fillAndClear() external returns (bool) {
        scratch = 1;
        scratch = 0;
        for (uint256 i = 0; i < 20; i++) { scratch = i + 1; }
        scratch = 0;
        return true;
    }
}

contract Forwarder {
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
    }
}
`;
