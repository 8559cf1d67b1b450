"""fcbench.envs"""
